import { describe, expect, it } from 'vitest';
import {
  type Message,
  messageText,
  newMessageId,
  toolResult,
  toolResultsOf,
  toolResultText,
  toolUsesOf,
  userMessage,
} from './message.js';

const mixed: Message = {
  id: 'a1',
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'secret' },
    { type: 'text', text: 'Let me ' },
    { type: 'tool_use', id: 'c1', name: 'read', input: {} },
    { type: 'text', text: 'check.' },
    { type: 'tool_use', id: 'c2', name: 'list', input: {} },
  ],
};

describe('newMessageId', () => {
  it('returns distinct URL-safe ids with the prefix', () => {
    const ids = Array.from({ length: 1000 }, () => newMessageId('run'));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^run_[0-9a-z]+$/);
  });
});

describe('userMessage', () => {
  it('builds a user message with one text block', () => {
    expect(userMessage('hi', 'u1')).toEqual({
      id: 'u1',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
  });
});

describe('toolResult', () => {
  it('builds a text result, not an error by default', () => {
    expect(toolResult('c1', 'ok')).toEqual({
      type: 'tool_result',
      toolUseId: 'c1',
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
    });
  });
});

describe('messageText', () => {
  it('joins the text blocks and leaves thinking out', () => {
    expect(messageText(mixed)).toBe('Let me check.');
  });
});

describe('toolUsesOf', () => {
  it('returns the calls in order', () => {
    expect(toolUsesOf(mixed).map((call) => call.id)).toEqual(['c1', 'c2']);
  });
});

describe('toolResultsOf', () => {
  it('returns the results in order', () => {
    const message: Message = {
      id: 'u1',
      role: 'user',
      content: [toolResult('c2', 'b'), { type: 'text', text: 'x' }, toolResult('c1', 'a')],
    };
    expect(toolResultsOf(message).map((result) => result.toolUseId)).toEqual(['c2', 'c1']);
  });
});

describe('toolResultText', () => {
  it('joins the text parts of a result and skips images', () => {
    expect(
      toolResultText({
        type: 'tool_result',
        toolUseId: 'c1',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
          { type: 'text', text: 'b' },
        ],
        isError: false,
      }),
    ).toBe('ab');
  });
});
