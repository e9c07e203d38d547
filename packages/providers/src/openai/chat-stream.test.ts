import { ProviderError, type StreamEvent } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { type ChatChunk, ChatStreamMapper } from './chat-stream.js';

const context = { provider: 'openai', endpoint: 'http://test' };

function play(chunks: readonly ChatChunk[]): StreamEvent[] {
  const mapper = new ChatStreamMapper(context);
  return [...chunks.flatMap((chunk) => mapper.push(chunk)), ...mapper.end()];
}

function choice(delta: Record<string, unknown>, finish_reason: string | null = null): ChatChunk {
  return { id: 'c', model: 'm', choices: [{ index: 0, delta, finish_reason }] };
}

type End = Extract<StreamEvent, { type: 'message-end' }>;
const endOf = (events: StreamEvent[]): End => events.at(-1) as End;

describe('ChatStreamMapper', () => {
  it('assembles parallel tool calls whose fragments interleave by index', () => {
    const events = play([
      choice({
        tool_calls: [
          { index: 0, id: 'a', type: 'function', function: { name: 'add', arguments: '' } },
          { index: 1, id: 'b', type: 'function', function: { name: 'mul', arguments: '{"x"' } },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"x":1' } }] }),
      choice({ tool_calls: [{ index: 1, function: { arguments: ':2}' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
      choice({}, 'tool_calls'),
    ]);
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', id: 'a', name: 'add' },
      { type: 'tool-call-start', id: 'b', name: 'mul' },
      { type: 'tool-call-delta', id: 'b', json: '{"x"' },
      { type: 'tool-call-delta', id: 'a', json: '{"x":1' },
      { type: 'tool-call-delta', id: 'b', json: ':2}' },
      { type: 'tool-call-delta', id: 'a', json: '}' },
      { type: 'tool-call-end', id: 'a', name: 'add', input: { x: 1 } },
      { type: 'tool-call-end', id: 'b', name: 'mul', input: { x: 2 } },
    ]);
    expect(endOf(events).message.content).toEqual([
      { type: 'tool_use', id: 'a', name: 'add', input: { x: 1 } },
      { type: 'tool_use', id: 'b', name: 'mul', input: { x: 2 } },
    ]);
    expect(endOf(events).stopReason).toBe('tool-use');
  });

  it('ignores Qwen-style continuation deltas that repeat id "" and type', () => {
    const events = play([
      choice({
        tool_calls: [
          { index: 0, id: 'q1', type: 'function', function: { name: 'w', arguments: '' } },
        ],
      }),
      choice({
        tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: '{"a":' } }],
      }),
      choice({
        tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: '1}' } }],
      }),
      choice({ tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: '' } }] }),
      choice({}, 'tool_calls'),
    ]);
    expect(events.filter((event) => event.type === 'tool-call-start')).toHaveLength(1);
    expect(endOf(events).message.content).toEqual([
      { type: 'tool_use', id: 'q1', name: 'w', input: { a: 1 } },
    ]);
  });

  it('reads an empty argument string as {}, object arguments as JSON, and invents missing ids', () => {
    const events = play([
      choice({ tool_calls: [{ function: { name: 'now', arguments: '' } }] }),
      choice({ tool_calls: [{ id: 'x2', function: { name: 'at', arguments: { city: 'Oslo' } } }] }),
      choice({}, 'tool_calls'),
    ]);
    const [first, second] = endOf(events).message.content;
    expect(first).toMatchObject({ type: 'tool_use', name: 'now', input: {} });
    expect((first as { id: string }).id).toMatch(/^call_/);
    expect(second).toEqual({ type: 'tool_use', id: 'x2', name: 'at', input: { city: 'Oslo' } });
  });

  it('splits index-less calls on a new name after complete arguments, not while fragments repeat it', () => {
    const events = play([
      choice({ tool_calls: [{ function: { name: 'f', arguments: '{"a":' } }] }),
      choice({ tool_calls: [{ function: { name: 'f', arguments: '1}' } }] }),
      choice({ tool_calls: [{ function: { name: 'g', arguments: '{}' } }] }),
      choice({}, 'tool_calls'),
    ]);
    expect(
      endOf(events).message.content.map((block) => [
        (block as { name: string }).name,
        (block as { input: unknown }).input,
      ]),
    ).toEqual([
      ['f', { a: 1 }],
      ['g', {}],
    ]);
  });

  it('starts a new call when a server reuses an index with a new id', () => {
    const events = play([
      choice({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }),
      choice({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{}' } }] }),
      choice({}, 'tool_calls'),
    ]);
    expect(endOf(events).message.content.map((block) => (block as { id: string }).id)).toEqual([
      'a',
      'b',
    ]);
  });

  it('maps reasoning_content or reasoning to thinking, before the text', () => {
    const events = play([
      choice({ role: 'assistant', content: '', reasoning_content: 'Think' }),
      choice({ reasoning: ' more' }),
      choice({ content: 'Answer' }, 'stop'),
    ]);
    expect(events.slice(0, 4)).toEqual([
      { type: 'message-start', id: 'c', model: 'm' },
      { type: 'thinking-delta', text: 'Think' },
      { type: 'thinking-delta', text: ' more' },
      { type: 'text-delta', text: 'Answer' },
    ]);
    expect(endOf(events).message.content).toEqual([
      { type: 'thinking', thinking: 'Think more' },
      { type: 'text', text: 'Answer' },
    ]);
    expect(endOf(events).stopReason).toBe('end');
  });

  it('keeps a refusal as text and stops with refusal', () => {
    const events = play([
      choice({ refusal: "I can't help" }),
      choice({ refusal: ' with that.' }, 'stop'),
    ]);
    expect(endOf(events).message.content).toEqual([
      { type: 'text', text: "I can't help with that." },
    ]);
    expect(endOf(events).stopReason).toBe('refusal');
  });

  it.each([
    ['stop', 'end'],
    ['length', 'max-tokens'],
    ['content_filter', 'refusal'],
    ['tool_calls', 'tool-use'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s', (finish, stop) => {
    expect(endOf(play([choice({ content: 'x' }, finish)])).stopReason).toBe(stop);
  });

  it('reports tool-use when a server says stop after tool calls (Ollama)', () => {
    const events = play([
      choice(
        { tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{}' } }] },
        'stop',
      ),
    ]);
    expect(endOf(events).stopReason).toBe('tool-use');
  });

  it('keeps a call cut by length as rawInput', () => {
    const events = play([
      choice({
        tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{"a": "lo' } }],
      }),
      choice({}, 'length'),
    ]);
    expect(endOf(events).stopReason).toBe('max-tokens');
    expect(endOf(events).message.content).toEqual([
      { type: 'tool_use', id: 't', name: 'f', input: {}, rawInput: '{"a": "lo' },
    ]);
  });

  it('takes usage from a trailing choices: [] chunk and settles once it has both', () => {
    const mapper = new ChatStreamMapper(context);
    mapper.push(choice({ content: 'x' }, 'stop'));
    expect(mapper.settled).toBe(false);
    mapper.push({
      choices: [],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 4 },
      },
    });
    expect(mapper.settled).toBe(true);
    const events = mapper.end();
    const usage = { inputTokens: 6, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 0 };
    expect(events[0]).toEqual({ type: 'usage', usage });
    expect(endOf(events).usage).toEqual(usage);
  });

  it('ends with zero usage and no usage event when the server sends none', () => {
    const events = play([choice({ content: 'x' }, 'stop')]);
    expect(events.some((event) => event.type === 'usage')).toBe(false);
    expect(endOf(events).usage.inputTokens).toBe(0);
  });

  it('throws a retryable network ProviderError when no finish_reason came', () => {
    const mapper = new ChatStreamMapper(context);
    mapper.push(choice({ content: 'par' }));
    let error: unknown;
    try {
      mapper.end();
    } catch (caught) {
      error = caught;
    }
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'openai' });
  });
});
