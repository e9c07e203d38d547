import { readFileSync } from 'node:fs';
import {
  type Clock,
  ProviderError,
  ReplayDriftError,
  type StreamEvent,
  systemClock,
} from '@mh/core';
import { collect, ManualClock, ScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import {
  answerEvents,
  forbiddenProvider,
  requestOf,
  tempCassette,
  USAGE,
} from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import { RecordingProvider } from '../recording/provider.js';
import { ReplayProvider } from './provider.js';

const KEY = { case: 'greet', repeat: 0 };

/** Records `turns` as one request each (request i asks `question i`), then closes. */
async function record(path: string, turns: (StreamEvent[] | Error)[]): Promise<void> {
  const cassette = await openCassette(path, { mode: 'record' });
  const provider = cassette.provider(
    new ScriptedProvider(
      turns.map((turn) =>
        turn instanceof Error ? { error: turn, eventsBeforeStop: 0 } : { events: turn },
      ),
    ),
    KEY,
  );
  expect(provider).toBeInstanceOf(RecordingProvider);
  for (const [index] of turns.entries()) {
    await collect(provider.stream(requestOf(`question ${index}`))).catch(() => undefined);
  }
  await cassette.close();
}

async function replayer(
  path: string,
  options: { strict?: boolean; mode?: 'replay' | 'lockdown' } = {},
  inner = forbiddenProvider,
) {
  const cassette = await openCassette(path, {
    mode: options.mode ?? 'lockdown',
    strict: options.strict,
  });
  const provider = cassette.provider(inner, KEY) as ReplayProvider;
  expect(provider).toBeInstanceOf(ReplayProvider);
  return { cassette, provider };
}

describe('ReplayProvider', () => {
  it('replays every event exactly: stream-reset, usage and message-end with its message', async () => {
    const path = tempCassette();
    const discarded = { ...USAGE, outputTokens: 7 };
    const events: StreamEvent[] = [
      { type: 'message-start', id: 'msg_0', model: 'claude-sonnet-4-5' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'stream-reset', attempt: 2, reason: 'overloaded', usage: discarded },
      ...answerEvents('Hello there', 'msg_1'),
    ];
    await record(path, [events]);
    const { provider } = await replayer(path);
    expect(await collect(provider.stream(requestOf('question 0')))).toEqual(events);
    expect(provider.drifts).toEqual([]);
  });

  it('replays a recorded ProviderError as the same typed error, after the same events', async () => {
    const path = tempCassette();
    const failure = new ProviderError('429 Too Many Requests', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 1500,
      provider: 'anthropic',
    });
    await record(path, [failure]);
    const { provider } = await replayer(path);
    const error = await collect(provider.stream(requestOf('question 0'))).catch((e) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      retryAfterMs: 1500,
      provider: 'anthropic',
    });
  });

  it('fails a drifted request in strict mode with the field path and request index', async () => {
    const path = tempCassette();
    await record(path, [answerEvents('Hi')]);
    const { provider, cassette } = await replayer(path);
    const error = await collect(
      provider.stream(requestOf('question 0', { system: 'Be verbose.' })),
    ).catch((e) => e);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      path: 'system',
      recorded: 'Be brief.',
      actual: 'Be verbose.',
      requestIndex: 0,
    });
    expect(error.message).toContain('system differs');
    expect(cassette.drifts.map((drift) => drift.path)).toEqual(['system']);
  });

  it('serves the recording anyway and lists every drift when not strict', async () => {
    const path = tempCassette();
    await record(path, [answerEvents('Hi')]);
    const { provider, cassette } = await replayer(path, { strict: false });
    const replayed = requestOf('question 0!', { maxOutputTokens: 256 });
    const events = await collect(provider.stream(replayed));
    expect(events.at(-1)).toMatchObject({ type: 'message-end' });
    expect(provider.drifts.map((drift) => [drift.kind, drift.path])).toEqual([
      ['request-field', 'messages[0].content[0].text'],
      ['request-field', 'maxOutputTokens'],
    ]);
    const { drifts } = await cassette.close();
    expect(drifts).toHaveLength(2);
    expect(drifts[1]?.message).toBe(
      'case "greet" repeat 0, request 0: maxOutputTokens differs: recorded (absent), now 256',
    );
  });

  it('fails a request beyond the recording in lockdown without calling the inner provider', async () => {
    const path = tempCassette();
    await record(path, [answerEvents('Hi')]);
    const { provider } = await replayer(path, { strict: false });
    await collect(provider.stream(requestOf('question 0')));
    const error = await collect(provider.stream(requestOf('question 1'))).catch((e) => e);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ path: 'requests', requestIndex: 1, recorded: 1, actual: 2 });
    expect(provider.drifts[0]?.kind).toBe('unrecorded-request');
  });

  it('lets a request beyond the recording fall through in replay mode and records it', async () => {
    const path = tempCassette();
    await record(path, [answerEvents('Hi')]);
    const inner = new ScriptedProvider([{ events: answerEvents('Second', 'msg_2') }]);
    const { provider, cassette } = await replayer(path, { mode: 'replay' }, inner);
    await collect(provider.stream(requestOf('question 0')));
    const events = await collect(provider.stream(requestOf('question 1')));
    expect(events).toEqual(answerEvents('Second', 'msg_2'));
    expect(inner.calls).toBe(1);
    expect(provider.drifts.map((drift) => drift.kind)).toEqual(['unrecorded-request']);
    await cassette.close();

    const again = await replayer(path);
    expect(again.provider.recorded).toBe(2);
    await collect(again.provider.stream(requestOf('question 0')));
    expect(await collect(again.provider.stream(requestOf('question 1')))).toEqual(events);
    expect(again.provider.finish()).toEqual([]);
  });

  it('reports recorded requests never asked for when the replay finishes', async () => {
    const path = tempCassette();
    await record(path, [answerEvents('a'), answerEvents('b'), answerEvents('c')]);
    const { provider, cassette } = await replayer(path);
    await collect(provider.stream(requestOf('question 0')));
    const { drifts } = await cassette.close();
    expect(drifts).toMatchObject([
      { kind: 'unconsumed-requests', path: 'requests', requestIndex: 1, recorded: 3, actual: 1 },
    ]);
    expect(drifts[0]?.message).toContain('2 recorded request(s) were never asked for');
  });

  it('paces events as recorded with timing: recorded', async () => {
    const path = tempCassette();
    let now = 0;
    const stepping: Clock = { now: () => (now += 5), sleep: systemClock.sleep };
    const cassette = await openCassette(path, { mode: 'record', clock: stepping });
    await collect(
      cassette
        .provider(new ScriptedProvider([{ events: answerEvents('Hi') }]), KEY)
        .stream(requestOf('q')),
    );
    await cassette.close();
    const line = JSON.parse(readFileSync(path, 'utf8').split('\n')[1] ?? '');
    expect(line.events.map((event: { ms: number }) => event.ms)).toEqual([5, 10, 15, 20, 25]);

    const instant = new ManualClock(0, { instant: true });
    const replay = await openCassette(path, {
      mode: 'lockdown',
      timing: 'recorded',
      clock: instant,
    });
    await collect(replay.provider(undefined, KEY).stream(requestOf('q')));
    expect(instant.sleeps).toEqual([5, 5, 5, 5, 5]);
  });

  it('ends an abandoned recording only when the replay is aborted too', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const provider = cassette.provider(
      new ScriptedProvider([{ events: answerEvents('Hello') }]),
      KEY,
    );
    for await (const event of provider.stream(requestOf('q'))) {
      if (event.type === 'text-delta') break;
    }
    await cassette.close();
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[1] ?? '').outcome).toBe('abandoned');

    const { provider: replay } = await replayer(path);
    const controller = new AbortController();
    const seen: string[] = [];
    let ended = false;
    const done = (async () => {
      for await (const event of replay.stream(requestOf('q'), { signal: controller.signal }))
        seen.push(event.type);
      ended = true;
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['message-start', 'text-delta']);
    expect(ended).toBe(false);
    controller.abort();
    await done;
    expect(ended).toBe(true);
  });

  it('records a stream that failed because its caller aborted as abandoned', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record' });
    const controller = new AbortController();
    const inner = {
      name: 'aborting',
      async *stream(): AsyncGenerator<StreamEvent> {
        yield { type: 'message-start' } as StreamEvent;
        controller.abort();
        throw new ProviderError('aborted', { kind: 'network' });
      },
    };
    const provider = cassette.provider(inner, KEY);
    await collect(provider.stream(requestOf('q'), { signal: controller.signal })).catch(() => {});
    await cassette.close();
    const line = JSON.parse(readFileSync(path, 'utf8').split('\n')[1] ?? '');
    expect([line.outcome, line.error]).toEqual(['abandoned', undefined]);
  });

  it('takes its name from the inner provider, else from the recorded meta', async () => {
    const path = tempCassette();
    const cassette = await openCassette(path, { mode: 'record', meta: { provider: 'anthropic' } });
    expect(cassette.provider(new ScriptedProvider([]), KEY).name).toBe('scripted');
    await cassette.close();
    const replay = await openCassette(path, { mode: 'lockdown' });
    expect(replay.provider(undefined, KEY).name).toBe('anthropic');
  });
});

describe('drift messages', () => {
  it('show two long strings around their first difference', async () => {
    const path = tempCassette();
    const long = `${'You are a careful assistant. '.repeat(5)}Answer briefly.`;
    const cassette = await openCassette(path, { mode: 'record' });
    await collect(
      cassette
        .provider(new ScriptedProvider([{ events: answerEvents('Hi') }]), KEY)
        .stream(requestOf('q', { system: long })),
    );
    await cassette.close();
    const { provider } = await replayer(path, { strict: false });
    await collect(
      provider.stream(requestOf('q', { system: long.replace('briefly', 'at length') })),
    );
    expect(provider.drifts[0]?.message).toBe(
      'case "greet" repeat 0, request 0: system differs at character 152: recorded "…e a careful assistant. Answer briefly.", now "…e a careful assistant. Answer at length."',
    );
  });
});
