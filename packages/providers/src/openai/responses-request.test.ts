import type { Message, ModelRequest } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { isReplayableReasoning, toResponsesRequest } from './responses-request.js';

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'm', messages, tools: [], ...extra };
}

describe('toResponsesRequest', () => {
  it('asks for typed output as a json_schema text.format, strict as the request says', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
      additionalProperties: false,
    };
    const body = toResponsesRequest(
      request([{ id: 'u', role: 'user', content: [{ type: 'text', text: 'n?' }] }], {
        output: { name: 'answer', schema, strict: false },
      }),
      {},
    );
    expect(body.text).toEqual({
      format: { type: 'json_schema', name: 'answer', schema, strict: false },
    });
  });

  it('requires a tool call when the request says so and there are tools', () => {
    const tools = [{ name: 'final_answer', description: 'd', inputSchema: { type: 'object' } }];
    const user: Message = { id: 'u', role: 'user', content: [{ type: 'text', text: 'n?' }] };
    expect(
      toResponsesRequest(request([user], { tools, toolChoice: 'required' }), {}).tool_choice,
    ).toBe('required');
    expect(toResponsesRequest(request([user], { tools }), {})).not.toHaveProperty('tool_choice');
  });

  it('sends a stateless request asking for encrypted reasoning', () => {
    const body = toResponsesRequest(
      request([{ id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }] }], {
        system: 'S',
        maxOutputTokens: 100,
        temperature: 1,
        stopSequences: ['x'],
      }),
      { reasoningEffort: 'medium' },
    );
    expect(body).toEqual({
      model: 'm',
      instructions: 'S',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      max_output_tokens: 100,
      temperature: 1,
      reasoning: { effort: 'medium', summary: 'auto' },
    });
  });

  it('maps the history into items paired by call_id, reasoning sent back with id and encrypted content', () => {
    const body = toResponsesRequest(
      request([
        { id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          id: 'a1',
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Plan', signature: 'rs_1', redacted: 'gAAA' },
            { type: 'thinking', thinking: 'no encrypted content', signature: 'rs_2' },
            { type: 'thinking', thinking: 'anthropic', signature: 'EuYBCkQ' },
            { type: 'text', text: 'Let me ' },
            { type: 'text', text: 'check.' },
            { type: 'tool_use', id: 'call_1', name: 'add', input: { a: 1 } },
            { type: 'provider', provider: 'openai', data: { id: 'ws_1', type: 'web_search_call' } },
            { type: 'provider', provider: 'anthropic', data: { type: 'server_tool_use' } },
          ],
        },
        {
          id: 'u2',
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: 'call_1',
              content: [{ type: 'text', text: '2' }],
              isError: false,
            },
            { type: 'text', text: 'thanks' },
          ],
        },
      ]),
      {},
    );
    expect(body.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Plan' }],
        encrypted_content: 'gAAA',
      },
      { role: 'assistant', content: 'Let me check.' },
      { type: 'function_call', call_id: 'call_1', name: 'add', arguments: '{"a":1}' },
      { id: 'ws_1', type: 'web_search_call' },
      { type: 'function_call_output', call_id: 'call_1', output: '2' },
      { role: 'user', content: [{ type: 'input_text', text: 'thanks' }] },
    ]);
    expect(body).not.toHaveProperty('reasoning');
  });

  it('sends raw tool arguments verbatim and tool-result images natively', () => {
    const body = toResponsesRequest(
      request([
        {
          id: 'a',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c', name: 't', input: {}, rawInput: '{"x":' }],
        },
        {
          id: 'u',
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: 'c',
              content: [
                { type: 'text', text: 'screenshot' },
                { type: 'image', mediaType: 'image/png', data: 'AAAA' },
              ],
              isError: false,
            },
          ],
        },
      ]),
      {},
    );
    expect(body.input).toEqual([
      { type: 'function_call', call_id: 'c', name: 't', arguments: '{"x":' },
      {
        type: 'function_call_output',
        call_id: 'c',
        output: [
          { type: 'input_text', text: 'screenshot' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
        ],
      },
    ]);
  });

  it('maps tools as non-strict function tools', () => {
    const body = toResponsesRequest(
      request([], {
        tools: [{ name: 'add', description: 'Adds', inputSchema: { type: 'object' } }],
      }),
      {},
    );
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'add',
        description: 'Adds',
        parameters: { type: 'object' },
        strict: false,
      },
    ]);
  });
});

describe('isReplayableReasoning', () => {
  it('needs an rs_ id and encrypted content', () => {
    expect(
      isReplayableReasoning({ type: 'thinking', thinking: '', signature: 'rs_1', redacted: 'x' }),
    ).toBe(true);
    expect(isReplayableReasoning({ type: 'thinking', thinking: 'a', signature: 'rs_1' })).toBe(
      false,
    );
    expect(
      isReplayableReasoning({ type: 'thinking', thinking: 'a', signature: 'sig', redacted: 'x' }),
    ).toBe(false);
  });
});
