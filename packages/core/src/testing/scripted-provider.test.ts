import { describe, expect, it } from 'vitest';
import { CancelledError } from '../errors.js';
import { collect } from './collect.js';
import { ScriptedProvider } from './scripted-provider.js';

const request = { model: 'm', messages: [], tools: [] };

describe('ScriptedProvider', () => {
  it('emits the events of a turn in the documented order', async () => {
    const provider = new ScriptedProvider([
      { text: ['a', 'b'], toolCalls: [{ id: 'c1', name: 'read', input: { p: 1 } }] },
    ]);
    const events = await collect(provider.stream(request));
    expect(events.map((event) => event.type)).toEqual([
      'message-start',
      'text-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'usage',
      'message-end',
    ]);
  });

  it('ends with a message holding the whole text and the calls', async () => {
    const provider = new ScriptedProvider([
      { text: ['a', 'b'], toolCalls: [{ id: 'c1', name: 'read', input: { p: 1 } }] },
    ]);
    const end = (await collect(provider.stream(request))).at(-1);
    expect(end).toMatchObject({
      type: 'message-end',
      stopReason: 'tool-use',
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'ab' },
          { type: 'tool_use', id: 'c1', name: 'read', input: { p: 1 } },
        ],
      },
    });
  });

  it('records every request', async () => {
    const provider = new ScriptedProvider([{ text: 'a' }, { text: 'b' }]);
    await collect(provider.stream(request));
    await collect(provider.stream({ ...request, system: 'second' }));
    expect(provider.requests.map((received) => received.system)).toEqual([undefined, 'second']);
  });

  it('throws the scripted error after the events before it', async () => {
    const error = new Error('boom');
    const provider = new ScriptedProvider([{ text: 'a', error, eventsBeforeStop: 2 }]);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of provider.stream(request)) seen.push(event.type);
      })(),
    ).rejects.toBe(error);
    expect(seen).toEqual(['message-start', 'text-delta']);
  });

  it('throws CancelledError from a hang when the signal aborts', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ hang: 'until-aborted', eventsBeforeStop: 0 }]);
    const pending = collect(provider.stream(request, { signal: controller.signal }));
    controller.abort();
    await expect(pending).rejects.toSatisfy((error) => CancelledError.isInstance(error));
  });

  it('streams a broken first attempt and a stream-reset before a turn with reset', async () => {
    const provider = new ScriptedProvider([
      { text: 'Hello.', reset: { text: 'Hel', reason: 'overloaded', usage: { inputTokens: 5 } } },
    ]);
    const events = await collect(provider.stream(request));
    expect(events.slice(0, 4).map((event) => event.type)).toEqual([
      'message-start',
      'text-delta',
      'stream-reset',
      'message-start',
    ]);
    expect(events[2]).toEqual({
      type: 'stream-reset',
      attempt: 2,
      reason: 'overloaded',
      usage: { inputTokens: 5, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(events.at(-1)).toMatchObject({ type: 'message-end', stopReason: 'end' });
  });
});
