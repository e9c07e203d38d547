import { ProviderError, type StreamEvent } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { MessageAssembler, usageOf } from './message-assembler.js';

// Synthetic raw events in the Messages API's streaming shape (recorded streams are covered by
// test/anthropic-fixtures.test.ts through the real SDK).
const start = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) => ({
  type: 'message_start',
  message: { id: 'msg_1', model: 'claude-test', content: [], usage },
});
const blockStart = (index: number, content_block: Record<string, unknown>) => ({
  type: 'content_block_start',
  index,
  content_block,
});
const delta = (index: number, body: Record<string, unknown>) => ({
  type: 'content_block_delta',
  index,
  delta: body,
});
const stop = (index: number) => ({ type: 'content_block_stop', index });
const messageDelta = (
  stop_reason: string,
  usage: Record<string, unknown> = { output_tokens: 5 },
) => ({
  type: 'message_delta',
  delta: { stop_reason, stop_sequence: null },
  usage,
});
const messageStop = { type: 'message_stop' };

function run(events: readonly unknown[]): StreamEvent[] {
  const assembler = new MessageAssembler();
  return events.flatMap((event) => assembler.accept(event));
}

function end(events: readonly StreamEvent[]): Extract<StreamEvent, { type: 'message-end' }> {
  const last = events.at(-1);
  if (last?.type !== 'message-end') throw new Error(`expected message-end, got ${last?.type}`);
  return last;
}

describe('MessageAssembler', () => {
  it('streams thinking, keeps its signature and keeps redacted thinking verbatim', () => {
    const events = run([
      start(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'Let me ' }),
      delta(0, { type: 'thinking_delta', thinking: 'think.' }),
      delta(0, {
        type: 'signature_delta',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      }),
      stop(0),
      blockStart(1, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xl' }),
      stop(1),
      blockStart(2, { type: 'text', text: '' }),
      delta(2, { type: 'text_delta', text: 'Done.' }),
      stop(2),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(events.filter((event) => event.type === 'thinking-delta')).toEqual([
      { type: 'thinking-delta', text: 'Let me ' },
      { type: 'thinking-delta', text: 'think.' },
    ]);
    expect(end(events).message.content).toEqual([
      {
        type: 'thinking',
        thinking: 'Let me think.',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
      { type: 'thinking', thinking: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xl' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('assembles several parallel tool calls, each with its own fragments', () => {
    const events = run([
      start(),
      blockStart(0, { type: 'tool_use', id: 'toolu_a', name: 'read', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"path":' }),
      blockStart(1, { type: 'tool_use', id: 'toolu_b', name: 'read', input: {} }),
      delta(1, { type: 'input_json_delta', partial_json: '{"path": "b.txt"}' }),
      delta(0, { type: 'input_json_delta', partial_json: ' "a.txt"}' }),
      stop(1),
      stop(0),
      messageDelta('tool_use'),
      messageStop,
    ]);
    expect(events.filter((event) => event.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', id: 'toolu_b', name: 'read', input: { path: 'b.txt' } },
      { type: 'tool-call-end', id: 'toolu_a', name: 'read', input: { path: 'a.txt' } },
    ]);
    const final = end(events);
    expect(final.stopReason).toBe('tool-use');
    // Blocks keep the stream's index order, not the order they finished in.
    expect(
      final.message.content.map((block) => (block.type === 'tool_use' ? block.id : '')),
    ).toEqual(['toolu_a', 'toolu_b']);
  });

  it('keeps invalid tool JSON as rawInput with input {} instead of throwing', () => {
    const events = run([
      start(),
      blockStart(0, { type: 'tool_use', id: 'toolu_x', name: 'write', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{path: a.txt}' }),
      stop(0),
      messageDelta('tool_use'),
      messageStop,
    ]);
    expect(end(events).message.content).toEqual([
      { type: 'tool_use', id: 'toolu_x', name: 'write', input: {}, rawInput: '{path: a.txt}' },
    ]);
  });

  it('uses a tool_use input that arrives whole on content_block_start', () => {
    const events = run([
      start(),
      blockStart(0, { type: 'tool_use', id: 'toolu_y', name: 'read', input: { path: 'c' } }),
      stop(0),
      messageStop,
    ]);
    expect(events).toContainEqual({
      type: 'tool-call-end',
      id: 'toolu_y',
      name: 'read',
      input: { path: 'c' },
    });
  });

  it('keeps server tool blocks as provider blocks, never as tool calls', () => {
    const result = {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [{ type: 'web_search_result', url: 'https://example.com', encrypted_content: 'Eq' }],
    };
    const events = run([
      start(),
      blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"query": "news"}' }),
      stop(0),
      blockStart(1, result),
      stop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(events.some((event) => event.type.startsWith('tool-call'))).toBe(false);
    expect(end(events).message.content).toEqual([
      {
        type: 'provider',
        provider: 'anthropic',
        data: {
          type: 'server_tool_use',
          id: 'srvtoolu_1',
          name: 'web_search',
          input: { query: 'news' },
        },
      },
      { type: 'provider', provider: 'anthropic', data: result },
    ]);
  });

  it('ignores citations deltas, pings and unknown events', () => {
    const events = run([
      start(),
      { type: 'ping' },
      blockStart(0, { type: 'text', text: '', citations: [] }),
      delta(0, { type: 'citations_delta', citation: { type: 'web_search_result_location' } }),
      delta(0, { type: 'text_delta', text: 'Cited.' }),
      { type: 'some_future_event', payload: 1 },
      stop(0),
      messageStop,
    ]);
    expect(end(events).message.content).toEqual([{ type: 'text', text: 'Cited.' }]);
  });

  it('closes blocks left open when max_tokens cuts the message', () => {
    const events = run([
      start(),
      blockStart(0, { type: 'tool_use', id: 'toolu_z', name: 'make_file', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"filename": "taxes.txt' }),
      messageDelta('max_tokens'),
      messageStop,
    ]);
    const final = end(events);
    expect(final.stopReason).toBe('max-tokens');
    expect(final.message.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_z',
        name: 'make_file',
        input: {},
        rawInput: '{"filename": "taxes.txt',
      },
    ]);
  });

  it('reports usage from message_start, then message_delta cumulative values where present', () => {
    const events = run([
      start({
        input_tokens: 12,
        output_tokens: 1,
        cache_read_input_tokens: 300,
        cache_creation_input_tokens: 40,
      }),
      messageDelta('end_turn', {
        output_tokens: 30,
        input_tokens: null,
        cache_read_input_tokens: 310,
      }),
      messageStop,
    ]);
    const usages = events.filter((event) => event.type === 'usage');
    expect(usages.map((event) => event.usage)).toEqual([
      { inputTokens: 12, outputTokens: 1, cacheReadTokens: 300, cacheWriteTokens: 40 },
      { inputTokens: 12, outputTokens: 30, cacheReadTokens: 310, cacheWriteTokens: 40 },
    ]);
    expect(end(events).usage).toEqual({
      inputTokens: 12,
      outputTokens: 30,
      cacheReadTokens: 310,
      cacheWriteTokens: 40,
    });
  });

  it('emits message-start with the id and model, and exactly one message-end', () => {
    const events = run([start(), messageStop, messageStop, { type: 'message_delta' }]);
    expect(events[0]).toEqual({ type: 'message-start', id: 'msg_1', model: 'claude-test' });
    expect(events.filter((event) => event.type === 'message-end')).toHaveLength(1);
    expect(end(events).model).toBe('claude-test');
    expect(end(events).message).toMatchObject({ id: 'msg_1', role: 'assistant' });
  });

  it('throws a ProviderError when a second message_start arrives', () => {
    const assembler = new MessageAssembler();
    assembler.accept(start());
    expect(() => assembler.accept(start())).toThrow(ProviderError);
  });

  it('reads null usage fields as absent', () => {
    expect(usageOf({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: null })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});
