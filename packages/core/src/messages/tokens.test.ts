import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../ports/provider.js';
import type { ContentBlock, Message } from './message.js';
import {
  estimateBlockTokens,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
} from './tokens.js';

describe('estimateTokens', () => {
  it('counts nothing for the empty string', () => {
    expect(estimateTokens('')).toBe(0);
  });

  it.each([
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['hello world!', 3],
    ['function f() { return 1; }', 7],
  ])('counts ASCII text %j as one token per 4 characters, rounded up (%i)', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each([
    ['é', 1],
    ['日本語', 3],
    ['Привет', 6],
  ])('counts each non-ASCII code point of %j as one token', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('counts an emoji outside the BMP as one token, not two UTF-16 units', () => {
    expect(estimateTokens('😀')).toBe(1);
  });

  it('adds the ASCII and non-ASCII parts of mixed text', () => {
    expect(estimateTokens('café au lait')).toBe(Math.ceil(11 / 4) + 1);
  });

  it('is never below a quarter of the code points', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(estimateTokens(text)).toBeGreaterThanOrEqual([...text].length / 4);
      }),
      { numRuns: 300 },
    );
  });

  it('grows with the text: appending never lowers the estimate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(estimateTokens(a + b)).toBeGreaterThanOrEqual(estimateTokens(a));
      }),
      { numRuns: 300 },
    );
  });
});

describe('estimateBlockTokens', () => {
  it('counts a text block as its text', () => {
    expect(estimateBlockTokens({ type: 'text', text: 'abcdefgh' })).toBe(2);
  });

  it('counts an image as IMAGE_TOKENS', () => {
    expect(
      estimateBlockTokens({ type: 'image', mediaType: 'image/png', data: 'x'.repeat(10) }),
    ).toBe(IMAGE_TOKENS);
  });

  it('counts thinking and its redacted data', () => {
    expect(
      estimateBlockTokens({
        type: 'thinking',
        thinking: 'abcd',
        redacted: 'efghijkl',
        signature: 'sig',
      }),
    ).toBe(3);
  });

  it('counts a tool call as its name, its JSON arguments and 8 tokens of framing', () => {
    const block: ContentBlock = { type: 'tool_use', id: 'c1', name: 'read', input: { p: 'ab' } };
    expect(estimateBlockTokens(block)).toBe(1 + estimateTokens('{"p":"ab"}') + 8);
  });

  it('counts the raw argument text of a call whose JSON did not parse', () => {
    const block: ContentBlock = {
      type: 'tool_use',
      id: 'c1',
      name: 'read',
      input: {},
      rawInput: '{"p":',
    };
    expect(estimateBlockTokens(block)).toBe(1 + 2 + 8);
  });

  it('counts a call without arguments', () => {
    const block: ContentBlock = { type: 'tool_use', id: 'c1', name: 'read', input: undefined };
    expect(estimateBlockTokens(block)).toBe(1 + 8);
  });

  it('counts a tool result as its parts plus 8 tokens of framing', () => {
    const block: ContentBlock = {
      type: 'tool_result',
      toolUseId: 'c1',
      content: [
        { type: 'text', text: 'abcd' },
        { type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' },
      ],
      isError: false,
    };
    expect(estimateBlockTokens(block)).toBe(8 + 1 + IMAGE_TOKENS);
  });
});

describe('estimateMessageTokens', () => {
  it('adds MESSAGE_OVERHEAD_TOKENS to its blocks', () => {
    const message: Message = {
      id: 'm1',
      role: 'user',
      content: [
        { type: 'text', text: 'abcd' },
        { type: 'text', text: 'efgh' },
      ],
    };
    expect(estimateMessageTokens(message)).toBe(MESSAGE_OVERHEAD_TOKENS + 2);
  });
});

describe('estimateRequestTokens', () => {
  it('adds the system prompt, the tool specs and the messages', () => {
    const request: ModelRequest = {
      model: 'm',
      system: 'abcdefgh',
      tools: [{ name: 'read', description: 'abcd', inputSchema: { type: 'object' } }],
      messages: [{ id: 'm1', role: 'user', content: [{ type: 'text', text: 'abcd' }] }],
    };
    const tool = 1 + 1 + estimateTokens('{"type":"object"}');
    expect(estimateRequestTokens(request)).toBe(2 + tool + MESSAGE_OVERHEAD_TOKENS + 1);
  });

  it('counts nothing for an empty request', () => {
    expect(estimateRequestTokens({ model: 'm', tools: [], messages: [] })).toBe(0);
  });
});
