import type { Message, ModelRequest } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { type ChatRequestSettings, toChatRequest } from './chat-request.js';

const settings: ChatRequestSettings = { maxTokensField: 'max_tokens', sendReasoning: false };

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'm', messages, tools: [], ...extra };
}

describe('toChatRequest', () => {
  it('asks for typed output as a json_schema response_format, strict as the request says', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    };
    const body = toChatRequest(
      request([{ id: 'u', role: 'user', content: [{ type: 'text', text: 'n?' }] }], {
        output: { name: 'answer', schema, strict: true },
      }),
      settings,
    );
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: true },
    });
  });

  it('requires a tool call when the request says so and there are tools', () => {
    const tools = [{ name: 'final_answer', description: 'd', inputSchema: { type: 'object' } }];
    const user: Message = { id: 'u', role: 'user', content: [{ type: 'text', text: 'n?' }] };
    expect(
      toChatRequest(request([user], { tools, toolChoice: 'required' }), settings).tool_choice,
    ).toBe('required');
    expect(toChatRequest(request([user], { tools }), settings)).not.toHaveProperty('tool_choice');
    expect(toChatRequest(request([user], { toolChoice: 'required' }), settings)).not.toHaveProperty(
      'tool_choice',
    );
  });

  it('sends the system prompt as a system message and asks for streamed usage', () => {
    const body = toChatRequest(
      request([{ id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }] }], {
        system: 'S',
      }),
      settings,
    );
    expect(body).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('maps user images to image_url parts, base64 as a data: URL', () => {
    const body = toChatRequest(
      request([
        {
          id: 'u',
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'image', mediaType: 'image/jpeg', url: 'https://img.test/a.jpg' },
          ],
        },
      ]),
      settings,
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://img.test/a.jpg' } },
        ],
      },
    ]);
  });

  it('maps tool calls and results, one tool message per result, before any user text', () => {
    const body = toChatRequest(
      request([
        { id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          id: 'a1',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Calling.' },
            { type: 'tool_use', id: 'c1', name: 'add', input: { a: 1 } },
            { type: 'tool_use', id: 'c2', name: 'add', input: {}, rawInput: '{"a": 1' },
          ],
        },
        {
          id: 'u2',
          role: 'user',
          content: [
            { type: 'text', text: 'also this' },
            {
              type: 'tool_result',
              toolUseId: 'c1',
              content: [{ type: 'text', text: '2' }],
              isError: false,
            },
            {
              type: 'tool_result',
              toolUseId: 'c2',
              content: [
                { type: 'text', text: 'bad JSON' },
                { type: 'image', mediaType: 'image/png', data: 'AAAA' },
              ],
              isError: true,
            },
          ],
        },
      ]),
      settings,
    );
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Calling.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } },
          { id: 'c2', type: 'function', function: { name: 'add', arguments: '{"a": 1' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '2' },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: 'bad JSON\n[image image/png not shown: tool results carry text only here]',
      },
      { role: 'user', content: 'also this' },
    ]);
  });

  it('sends null content for a tool-only assistant message', () => {
    const body = toChatRequest(
      request([
        {
          id: 'a',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c', name: 't', input: {} }],
        },
      ]),
      settings,
    );
    expect(body.messages[0]).toMatchObject({ role: 'assistant', content: null });
  });

  it('drops thinking and other vendors` blocks, or echoes unsigned thinking when asked', () => {
    const assistant: Message = {
      id: 'a',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plain reasoning' },
        { type: 'thinking', thinking: 'signed', signature: 'sig' },
        { type: 'thinking', thinking: '', signature: 'rs_1', redacted: 'enc' },
        { type: 'provider', provider: 'anthropic', data: { type: 'server_tool_use' } },
        { type: 'text', text: 'answer' },
      ],
    };
    expect(toChatRequest(request([assistant]), settings).messages).toEqual([
      { role: 'assistant', content: 'answer' },
    ]);
    expect(
      toChatRequest(request([assistant]), { ...settings, sendReasoning: true }).messages,
    ).toEqual([{ role: 'assistant', content: 'answer', reasoning_content: 'plain reasoning' }]);
  });

  it('maps tools, token cap, temperature, stop sequences and reasoning effort', () => {
    const body = toChatRequest(
      request([], {
        tools: [
          {
            name: 'add',
            description: 'Adds',
            inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
          },
        ],
        maxOutputTokens: 256,
        temperature: 0,
        stopSequences: ['\n\n'],
      }),
      { maxTokensField: 'max_completion_tokens', reasoningEffort: 'low', sendReasoning: false },
    );
    expect(body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'add',
            description: 'Adds',
            parameters: { type: 'object', properties: { a: { type: 'number' } } },
          },
        },
      ],
      max_completion_tokens: 256,
      temperature: 0,
      stop: ['\n\n'],
      reasoning_effort: 'low',
    });
    expect(body).not.toHaveProperty('max_tokens');
    expect(toChatRequest(request([], { stopSequences: [] }), settings)).not.toHaveProperty('stop');
  });
});
