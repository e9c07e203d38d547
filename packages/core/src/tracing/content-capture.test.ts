import { describe, expect, it } from 'vitest';
import { type Message, toolResult, userMessage } from '../messages/message.js';
import type { ModelRequest } from '../ports/provider.js';
import {
  finishReason,
  inferenceDetails,
  MAX_CONTENT_PART_CHARS,
  MAX_INPUT_MESSAGES_CHARS,
  toolCallDetails,
} from './content-capture.js';

const assistant: Message = {
  id: 'a1',
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'hmm', signature: 'sig' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.txt' } },
  ],
};
const results: Message = { id: 'u2', role: 'user', content: [toolResult('c1', 'contents')] };

function request(messages: readonly Message[], system?: string): ModelRequest {
  return { model: 'm', system, messages, tools: [] };
}

function parsed(value: unknown): unknown {
  return JSON.parse(String(value));
}

describe('inferenceDetails', () => {
  it('maps messages to the GenAI message schema, tool results under the role tool', () => {
    const details = inferenceDetails(
      request([userMessage('hi', 'u1'), assistant, results], 'Be brief.'),
    );
    expect(parsed(details['gen_ai.system_instructions'])).toEqual([
      { type: 'text', content: 'Be brief.' },
    ]);
    expect(parsed(details['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'hmm' },
          { type: 'text', content: 'Let me look.' },
          { type: 'tool_call', id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'contents' }] },
    ]);
    expect(details['gen_ai.output.messages']).toBeUndefined();
  });

  it('adds the output message with its finish reason when the call completed', () => {
    const details = inferenceDetails(request([userMessage('hi')]), {
      message: assistant,
      stopReason: 'tool-use',
    });
    expect(parsed(details['gen_ai.output.messages'])).toMatchObject([
      { role: 'assistant', finish_reason: 'tool_call' },
    ]);
  });

  it('leaves image bytes out but keeps their type', () => {
    const image: Message = {
      id: 'u',
      role: 'user',
      content: [{ type: 'image', mediaType: 'image/png', data: 'QUJD'.repeat(1000) }],
    };
    const json = String(inferenceDetails(request([image]))['gen_ai.input.messages']);
    expect(json).not.toContain('QUJD');
    expect(parsed(json)).toEqual([
      { role: 'user', parts: [{ type: 'blob', modality: 'image', mime_type: 'image/png' }] },
    ]);
  });

  it('keeps the newest messages that fit the budget and counts the rest', () => {
    const big = 'x'.repeat(MAX_CONTENT_PART_CHARS);
    const messages = Array.from({ length: 20 }, (_, index) => userMessage(`${index}${big}`));
    const details = inferenceDetails(request(messages));
    const kept = parsed(details['gen_ai.input.messages']) as { parts: { content: string }[] }[];
    expect(String(details['gen_ai.input.messages']).length).toBeLessThanOrEqual(
      MAX_INPUT_MESSAGES_CHARS + 2,
    );
    expect(details['mh.content.omitted_messages']).toBe(20 - kept.length);
    expect(kept.at(-1)?.parts[0]?.content.startsWith('19')).toBe(true);
  });

  it('cuts an overlong part and says by how much', () => {
    const text = 'y'.repeat(MAX_CONTENT_PART_CHARS + 10);
    const kept = parsed(inferenceDetails(request([userMessage(text)]))['gen_ai.input.messages']);
    expect(JSON.stringify(kept)).toContain('…[+10 chars]');
  });
});

describe('toolCallDetails', () => {
  it('records the arguments as JSON and the result text', () => {
    const details = toolCallDetails(
      { type: 'tool_use', id: 'c1', name: 'grep', input: { pattern: 'x' } },
      toolResult('c1', 'no match'),
    );
    expect(details).toEqual({
      'gen_ai.tool.call.arguments': '{"pattern":"x"}',
      'gen_ai.tool.call.result': 'no match',
    });
  });

  it('records unparsable arguments as the model sent them', () => {
    const details = toolCallDetails(
      { type: 'tool_use', id: 'c1', name: 'grep', input: {}, rawInput: '{"pattern": ' },
      toolResult('c1', 'Invalid arguments', true),
    );
    expect(details['gen_ai.tool.call.arguments']).toBe('{"pattern": ');
  });
});

describe('finishReason', () => {
  it('speaks the conventions', () => {
    expect(finishReason('end')).toBe('stop');
    expect(finishReason('tool-use')).toBe('tool_call');
    expect(finishReason('max-tokens')).toBe('length');
    expect(finishReason('refusal')).toBe('content_filter');
  });
});
