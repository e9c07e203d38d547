import { type ModelRequest, ProviderError, type StreamEvent } from '@mh/core';
import { collect, ScriptedProvider as KitScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { scripted } from './scripted-provider.js';

const request: ModelRequest = {
  model: 'test-model',
  messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
};

describe('ScriptedProvider', () => {
  it("is @mh/core/testing's scripted provider", () => {
    expect(scripted([{ text: 'x' }])).toBeInstanceOf(KitScriptedProvider);
  });

  it('plays turns in order and records each request', async () => {
    const provider = scripted([{ text: 'one' }, { text: 'two' }]);
    const first = await collect(provider.stream(request));
    const second = await collect(provider.stream(request));
    const text = (events: StreamEvent[]): string =>
      events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
    expect([text(first), text(second)]).toEqual(['one', 'two']);
    expect(provider.requests).toHaveLength(2);
    expect(provider.remaining).toBe(0);
  });

  it('throws a ProviderError when the script runs out', async () => {
    const provider = scripted([{ text: 'only' }]);
    await collect(provider.stream(request));
    await expect(collect(provider.stream(request))).rejects.toSatisfy(ProviderError.isInstance);
  });

  it('repeats the last turn when told to', async () => {
    const provider = scripted([{ text: 'again' }], { whenExhausted: 'repeat-last' });
    await collect(provider.stream(request));
    const events = await collect(provider.stream(request));
    expect(events.some((event) => event.type === 'text-delta' && event.text === 'again')).toBe(
      true,
    );
  });

  it('reports the usage it was given', async () => {
    const events = await collect(
      scripted([{ text: 'x', usage: { inputTokens: 7, outputTokens: 3 } }]).stream(request),
    );
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.usage).toEqual({
      inputTokens: 7,
      outputTokens: 3,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it('breaks the stream after the given number of events', async () => {
    const error = new ProviderError('overloaded', { kind: 'overloaded' });
    const seen: StreamEvent[] = [];
    await expect(async () => {
      for await (const event of scripted([
        { text: 'abcdefghijklmnopqrstuvwxyz', failAfterEvents: 2, error },
      ]).stream(request)) {
        seen.push(event);
      }
    }).rejects.toBe(error);
    expect(seen).toHaveLength(2);
  });

  it('ends normally when it would break after more events than the turn has', async () => {
    const events = await collect(
      scripted([{ text: 'short', failAfterEvents: 99 }]).stream(request),
    );
    expect(events.at(-1)?.type).toBe('message-end');
  });

  it('keeps broken JSON arguments verbatim in rawInput with an empty input', async () => {
    const events = await collect(
      scripted([{ toolCalls: [{ id: 'c1', name: 'add', rawInput: '{"a": 1,' }] }]).stream(request),
    );
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.message.content[0]).toEqual({
      type: 'tool_use',
      id: 'c1',
      name: 'add',
      input: {},
      rawInput: '{"a": 1,',
    });
  });

  it('answers from the request when a step is a function', async () => {
    const provider = scripted([(seen) => ({ text: `model was ${seen.model}` })]);
    const events = await collect(provider.stream(request));
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.message.content).toEqual([
      { type: 'text', text: 'model was test-model' },
    ]);
  });

  it('hangs until aborted when asked to', async () => {
    const controller = new AbortController();
    const provider = scripted([{ text: 'never finishes', hangAfterEvents: 1 }]);
    const pending = collect(provider.stream(request, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toThrow(/aborted/);
  });

  it('rejects a script that is not an array with a ConfigError naming turns', () => {
    expect(() => scripted('nope' as never)).toThrow(expect.objectContaining({ field: 'turns' }));
  });

  it('rejects a turn with a misspelt key with a ConfigError naming it', () => {
    const turns = [{ text: 'one' }, { txt: 'two' }] as never;
    expect(() => scripted(turns)).toThrow(expect.objectContaining({ field: 'turns[1].txt' }));
  });
});
