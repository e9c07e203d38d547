import { describe, expect, it } from 'vitest';
import { CancelledError } from '../errors.js';
import { collect } from './collect.js';
import { ScriptedProvider, scriptedEvents } from './scripted-provider.js';

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

  it('throws the scripted error, not CancelledError, from a hang when the signal aborts', async () => {
    const controller = new AbortController();
    const error = new Error('gave up');
    const provider = new ScriptedProvider([{ hang: 'until-aborted', error, eventsBeforeStop: 1 }]);
    const seen: string[] = [];
    const pending = (async () => {
      for await (const event of provider.stream(request, { signal: controller.signal }))
        seen.push(event.type);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['message-start']);
    controller.abort();
    await expect(pending).rejects.toBe(error);
  });

  it('throws CancelledError at the next event once the signal has aborted', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ['a', 'b', 'c'] }]);
    const seen: string[] = [];
    const consume = async (): Promise<void> => {
      for await (const event of provider.stream(request, { signal: controller.signal })) {
        seen.push(event.type);
        if (event.type === 'text-delta') controller.abort();
      }
    };
    await expect(consume()).rejects.toSatisfy(CancelledError.isInstance);
    expect(seen).toEqual(['message-start', 'text-delta']);
  });

  it('streams the events of a turn with events verbatim, and cuts them like any turn', async () => {
    const events = scriptedEvents({ text: 'recorded', model: 'm1' });
    const error = new Error('cut');
    const provider = new ScriptedProvider([{ events }, { events, error, eventsBeforeStop: 1 }]);
    expect(await collect(provider.stream(request))).toEqual(events);
    await expect(collect(provider.stream(request))).rejects.toBe(error);
    expect(provider.produced).toBe(events.length + 1);
  });

  it('counts every call but keeps no request with recordRequests false', async () => {
    const provider = new ScriptedProvider((index) => ({ text: `turn ${index}` }), {
      recordRequests: false,
    });
    await collect(provider.stream(request));
    const second = await collect(provider.stream(request));
    expect(second.at(-1)).toMatchObject({
      message: { content: [{ type: 'text', text: 'turn 1' }] },
    });
    expect([provider.calls, provider.requests]).toEqual([2, []]);
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
