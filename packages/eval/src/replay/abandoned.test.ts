import { readFileSync } from 'node:fs';
import {
  type Clock,
  type ModelRequest,
  type Provider,
  ReplayDriftError,
  type StreamEvent,
  type StreamOptions,
  systemClock,
} from '@mh/core';
import { collectSettled, ManualClock } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { answerEvents, forbiddenProvider, requestOf, tempCassette } from '../../test/helpers.js';
import { openCassette } from '../cassette/cassette.js';
import { RecordingProvider } from '../recording/provider.js';
import { ReplayProvider } from './provider.js';
import { CUT_OFF_GRACE_MS } from './stream.js';

const KEY = { case: 'cut', repeat: 0 };

/** Streams `events`, then stalls until its signal aborts and fails as an aborted SDK would. */
const stallingProvider = (events: StreamEvent[]): Provider => ({
  name: 'stalling',
  async *stream(_request: ModelRequest, options: StreamOptions = {}) {
    for (const event of events) yield event;
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    throw new Error('Request was aborted.');
  },
});

/**
 * Records one request whose run is aborted (a timeout, a Ctrl-C) after two events, through the
 * real `RecordingProvider`.
 */
async function recordAbandoned(path: string, request: ModelRequest): Promise<void> {
  const cassette = await openCassette(path, { mode: 'record' });
  const provider = cassette.provider(
    stallingProvider(answerEvents('Hello there').slice(0, 2)),
    KEY,
  );
  expect(provider).toBeInstanceOf(RecordingProvider);
  const controller = new AbortController();
  const seen: string[] = [];
  await expect(
    (async () => {
      for await (const event of provider.stream(request, { signal: controller.signal })) {
        seen.push(event.type);
        if (seen.length === 2) setTimeout(() => controller.abort(new Error('timed out')), 5);
      }
    })(),
  ).rejects.toThrow('aborted');
  await cassette.close();
  const line = JSON.parse(readFileSync(path, 'utf8').split('\n')[1] ?? '');
  expect([line.outcome, line.events.length]).toEqual(['abandoned', 2]);
}

async function replayer(path: string, options: { strict?: boolean; clock?: Clock } = {}) {
  const cassette = await openCassette(path, {
    mode: 'lockdown',
    strict: options.strict ?? false,
    clock: options.clock,
  });
  const provider = cassette.provider(forbiddenProvider, KEY) as ReplayProvider;
  expect(provider).toBeInstanceOf(ReplayProvider);
  return { cassette, provider };
}

/** The types of `events`, in order. */
const types = (events: readonly StreamEvent[]): string[] => events.map((event) => event.type);

describe('replaying an abandoned (cancelled, timed out) recording', () => {
  it('still diffs the request, and fails with a drift error when nothing cancels the replay', async () => {
    const path = tempCassette();
    await recordAbandoned(path, requestOf('hello', { system: 'be brief' }));
    const clock = new ManualClock(0, { instant: true });
    const { cassette, provider } = await replayer(path, { clock });
    const never = new AbortController();
    const { items, error } = await collectSettled(
      provider.stream(requestOf('hello', { system: 'zzz' }), { signal: never.signal }),
    );
    expect(types(items)).toEqual(['message-start', 'text-delta']);
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect((error as ReplayDriftError).message).toMatch(/request 0: the recording was cut off/);
    // It waited the recorded time plus the grace for an abort, no longer.
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(CUT_OFF_GRACE_MS);
    const { drifts } = await cassette.close();
    expect(drifts.map((drift) => [drift.kind, drift.path])).toEqual([
      ['request-field', 'system'],
      ['abandoned-request', 'outcome'],
    ]);
  });

  it('fails at once without a signal, since nothing could ever cancel it', async () => {
    const path = tempCassette();
    await recordAbandoned(path, requestOf('hello'));
    const clock = new ManualClock(0, { instant: true });
    const { cassette, provider } = await replayer(path, { clock });
    const { error } = await collectSettled(provider.stream(requestOf('hello')));
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(clock.sleeps).toEqual([]);
    const { drifts } = await cassette.close();
    expect(drifts.map((drift) => drift.kind)).toEqual(['abandoned-request']);
  });

  it('ends as recorded, with no drift, when the replay is cancelled at the same point', async () => {
    const path = tempCassette();
    await recordAbandoned(path, requestOf('hello'));
    const { cassette, provider } = await replayer(path, { clock: systemClock });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const { items, error } = await collectSettled(
      provider.stream(requestOf('hello'), { signal: controller.signal }),
    );
    expect([types(items), error]).toEqual([['message-start', 'text-delta'], undefined]);
    expect((await cassette.close()).drifts).toEqual([]);
  });

  it('fails a strict replay on the request drift before the cut-off', async () => {
    const path = tempCassette();
    await recordAbandoned(path, requestOf('hello', { system: 'be brief' }));
    const { provider } = await replayer(path, {
      strict: true,
      clock: new ManualClock(0, { instant: true }),
    });
    const { items, error } = await collectSettled(
      provider.stream(requestOf('hello', { system: 'zzz' }), {
        signal: new AbortController().signal,
      }),
    );
    expect(types(items)).toEqual([]);
    expect((error as ReplayDriftError).path).toBe('system');
  });

  it('keeps a real process alive until it ends: never a promise left pending', async () => {
    const path = tempCassette();
    await recordAbandoned(path, requestOf('hello'));
    const { provider } = await replayer(path, { clock: systemClock });
    const started = performance.now();
    const { error } = await collectSettled(
      provider.stream(requestOf('hello'), { signal: new AbortController().signal }),
    );
    expect(ReplayDriftError.isInstance(error)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(CUT_OFF_GRACE_MS - 5);
  });
});
