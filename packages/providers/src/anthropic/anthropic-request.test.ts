import { ConfigError, type Message, type ModelRequest, type ToolSpec } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { type AnthropicRequestSettings, toAnthropicRequest } from './anthropic-request.js';
import { countCacheBreakpoints } from './cache-breakpoints.js';

const tool = (name: string): ToolSpec => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});
const user = (id: string, text: string, meta?: Message['meta']): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
  meta,
});
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-sonnet-4-5',
  messages: [user('m1', 'Hello')],
  tools: [],
  ...overrides,
});
const noCache: AnthropicRequestSettings = { cache: false, defaultMaxOutputTokens: 8192 };
const cached: AnthropicRequestSettings = { cache: true, defaultMaxOutputTokens: 8192 };
const ephemeral = { type: 'ephemeral' };

describe('toAnthropicRequest', () => {
  it('asks for typed output as output_config.format, a JSON schema', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    };
    const params = toAnthropicRequest(
      request({ output: { name: 'answer', schema, strict: true } }),
      noCache,
    );
    expect(params.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(toAnthropicRequest(request(), noCache)).not.toHaveProperty('output_config');
  });

  it('forces a tool call (any) when the request requires one, except with thinking on', () => {
    const forced = request({ tools: [tool('final_answer')], toolChoice: 'required' });
    expect(toAnthropicRequest(forced, noCache).tool_choice).toEqual({ type: 'any' });
    expect(toAnthropicRequest(request({ tools: [tool('a')] }), noCache)).not.toHaveProperty(
      'tool_choice',
    );
    // The API refuses a forced tool with extended thinking: the loop takes a JSON text answer then.
    const thinking = toAnthropicRequest(forced, { ...noCache, thinkingBudgetTokens: 2048 });
    expect(thinking).not.toHaveProperty('tool_choice');
  });

  it('maps model, max_tokens, system, tools and stop sequences, streaming', () => {
    const params = toAnthropicRequest(
      request({
        system: 'Be brief.',
        tools: [tool('read')],
        maxOutputTokens: 1000,
        stopSequences: ['END'],
      }),
      noCache,
    );
    expect(params).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      stream: true,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      tools: [
        { name: 'read', description: 'The read tool', input_schema: tool('read').inputSchema },
      ],
      stop_sequences: ['END'],
    });
  });

  it('uses defaultMaxOutputTokens when the request sets no maxOutputTokens', () => {
    expect(
      toAnthropicRequest(request(), { ...noCache, defaultMaxOutputTokens: 4096 }).max_tokens,
    ).toBe(4096);
  });

  it('sends temperature exactly when the request sets it', () => {
    const withTemperature = request({ temperature: 0.2 });
    expect(toAnthropicRequest(withTemperature, noCache)).toHaveProperty('temperature', 0.2);
    expect(toAnthropicRequest(request(), noCache)).not.toHaveProperty('temperature');
  });

  it('enables extended thinking with the configured budget', () => {
    const params = toAnthropicRequest(request(), { ...noCache, thinkingBudgetTokens: 2048 });
    expect(params.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('throws a ConfigError when max tokens do not exceed the thinking budget', () => {
    const settings = { ...noCache, thinkingBudgetTokens: 2048 };
    expect(() => toAnthropicRequest(request({ maxOutputTokens: 2048 }), settings)).toThrow(
      ConfigError,
    );
  });

  it('maps every block type of a tool round trip', () => {
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Plan.', signature: 'sig-1' },
        { type: 'thinking', thinking: '', redacted: 'opaque-data' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
        { type: 'tool_use', id: 'toolu_2', name: 'read', input: {}, rawInput: '{"pa' },
      ],
    };
    const results: Message = {
      id: 'u2',
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'toolu_1',
          isError: false,
          content: [
            { type: 'text', text: 'file a' },
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          ],
        },
        {
          type: 'tool_result',
          toolUseId: 'toolu_2',
          isError: true,
          content: [{ type: 'text', text: 'Invalid JSON arguments' }],
        },
      ],
    };
    const params = toAnthropicRequest(
      request({ messages: [user('u1', 'Go'), assistant, results] }),
      noCache,
    );
    expect(params.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Plan.', signature: 'sig-1' },
          { type: 'redacted_thinking', data: 'opaque-data' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: 'file a' },
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
              },
            ],
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            is_error: true,
            content: [{ type: 'text', text: 'Invalid JSON arguments' }],
          },
        ],
      },
    ]);
  });

  it('maps images given by URL', () => {
    const message: Message = {
      id: 'u1',
      role: 'user',
      content: [{ type: 'image', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' }],
    };
    expect(
      toAnthropicRequest(request({ messages: [message] }), noCache).messages[0]?.content,
    ).toEqual([{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } }]);
  });

  it('sends Anthropic provider blocks back as their data and drops other vendors', () => {
    const serverCall = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} };
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'provider', provider: 'anthropic', data: serverCall },
        { type: 'provider', provider: 'openai', data: { type: 'reasoning', id: 'rs_1' } },
        { type: 'text', text: 'Found it.' },
      ],
    };
    const params = toAnthropicRequest(
      request({ messages: [user('u1', 'Search'), assistant] }),
      noCache,
    );
    expect(params.messages[1]?.content).toEqual([serverCall, { type: 'text', text: 'Found it.' }]);
  });

  it('drops empty text, unsigned thinking and messages left empty', () => {
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'unsigned reasoning from another vendor' },
        { type: 'text', text: '' },
      ],
    };
    const params = toAnthropicRequest(
      request({ messages: [user('u1', 'One'), assistant, user('u2', 'Two')] }),
      noCache,
    );
    expect(params.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'One' },
          { type: 'text', text: 'Two' },
        ],
      },
    ]);
  });

  it('merges consecutive same-role messages, tool results first', () => {
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }],
    };
    const results: Message = {
      id: 'u3',
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_1', isError: false, content: [] }],
    };
    const params = toAnthropicRequest(
      request({ messages: [user('u1', 'Go'), assistant, user('u2', 'Also this'), results] }),
      noCache,
    );
    expect(params.messages).toHaveLength(3);
    expect(params.messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1' },
      { type: 'text', text: 'Also this' },
    ]);
  });

  it('puts cache breakpoints on the system prompt, the last tool, the latest summary and the newest block', () => {
    const summary1 = user('s1', 'Old summary', { cacheBreakpoint: true });
    const summary2: Message = {
      id: 's2',
      role: 'user',
      content: [
        { type: 'text', text: 'Summary' },
        { type: 'text', text: 'of the work so far' },
      ],
      meta: { cacheBreakpoint: true },
    };
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'text', text: 'OK' }],
    };
    const params = toAnthropicRequest(
      request({
        system: 'System.',
        tools: [tool('read'), tool('write')],
        messages: [summary1, assistant, summary2, { ...assistant, id: 'a2' }, user('u3', 'Next')],
      }),
      cached,
    );
    expect(params.system).toEqual([{ type: 'text', text: 'System.', cache_control: ephemeral }]);
    expect(params.tools?.[0]).not.toHaveProperty('cache_control');
    expect(params.tools?.[1]).toHaveProperty('cache_control', ephemeral);
    expect(params.messages[2]?.content).toEqual([
      { type: 'text', text: 'Summary' },
      { type: 'text', text: 'of the work so far', cache_control: ephemeral },
    ]);
    expect(params.messages[4]?.content).toEqual([
      { type: 'text', text: 'Next', cache_control: ephemeral },
    ]);
    expect(countCacheBreakpoints(params)).toBe(4);
  });

  it('puts the summary breakpoint before a trailing thinking block, which cannot carry one', () => {
    const marked: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'text', text: 'Summary' },
        { type: 'thinking', thinking: 'x', signature: 'sig' },
      ],
      meta: { cacheBreakpoint: true },
    };
    const params = toAnthropicRequest(request({ messages: [user('u1', 'Hi'), marked] }), cached);
    expect(params.messages[1]?.content).toEqual([
      { type: 'text', text: 'Summary', cache_control: ephemeral },
      { type: 'thinking', thinking: 'x', signature: 'sig' },
    ]);
  });

  it('never exceeds four breakpoints, counting those inside passed-through blocks', () => {
    const marked = (id: string) => ({
      type: 'provider' as const,
      provider: 'anthropic',
      data: { type: 'text', text: id, cache_control: ephemeral },
    });
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [marked('x'), marked('y')],
    };
    const params = toAnthropicRequest(
      request({
        system: 'System.',
        tools: [tool('read')],
        messages: [user('u1', 'Hi'), assistant, user('s', 'Summary', { cacheBreakpoint: true })],
      }),
      cached,
    );
    expect(countCacheBreakpoints(params)).toBe(4);
    expect(params.messages[2]?.content).toEqual([{ type: 'text', text: 'Summary' }]);
  });

  it('leaves the history unchanged when it marks a passed-through block', () => {
    const data = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} };
    const marked: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'provider', provider: 'anthropic', data }],
      meta: { cacheBreakpoint: true },
    };
    const params = toAnthropicRequest(request({ messages: [user('u1', 'Hi'), marked] }), cached);
    expect(params.messages[1]?.content).toEqual([{ ...data, cache_control: ephemeral }]);
    expect(data).not.toHaveProperty('cache_control');
  });

  it('sends no cache_control when caching is off', () => {
    const params = toAnthropicRequest(
      request({
        system: 'System.',
        tools: [tool('read')],
        messages: [user('s', 'Summary', { cacheBreakpoint: true })],
      }),
      noCache,
    );
    expect(JSON.stringify(params)).not.toContain('cache_control');
  });

  it('is deterministic: the same request maps to the same bytes', () => {
    const input = request({ system: 'S', tools: [tool('read')] });
    expect(JSON.stringify(toAnthropicRequest(input, cached))).toBe(
      JSON.stringify(toAnthropicRequest(input, cached)),
    );
  });
});
