import { ManualClock } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { idleTimeoutError, pullWithin } from './idle-timeout.js';

/** A clock whose sleeps end at once. */
const instantClock = (): ManualClock => new ManualClock(0, { instant: true });

/** A clock whose sleeps never end unless aborted: it is never advanced. */
const stoppedClock = new ManualClock(0);

const silent: AsyncIterator<number> = { next: () => new Promise(() => {}) };

function counting(): AsyncIterator<number> {
  let value = 0;
  return { next: async () => ({ done: false, value: ++value }) };
}

describe('pullWithin', () => {
  const signal = new AbortController().signal;

  it('returns the next item and stops its idle sleep', async () => {
    const clock = new ManualClock(0);
    const pull = await pullWithin(counting(), { idleTimeoutMs: 1000, clock, signal });
    expect(pull).toEqual({ type: 'next', result: { done: false, value: 1 } });
    // The sleep was asked for and is no longer pending: its signal aborted it.
    expect([clock.sleeps, clock.pendingTimers]).toEqual([[1000], 0]);
  });

  it('returns idle when the iterator is silent past the limit', async () => {
    const pull = await pullWithin(silent, { idleTimeoutMs: 1000, clock: instantClock(), signal });
    expect(pull).toEqual({ type: 'idle' });
  });

  it('never goes idle when the limit is 0', async () => {
    const clock = instantClock();
    const controller = new AbortController();
    const pending = pullWithin(silent, { idleTimeoutMs: 0, clock, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await pending).toEqual({ type: 'aborted' });
    expect(clock.sleeps).toEqual([]);
  });

  it('returns an iterator failure instead of throwing it', async () => {
    const failure = new Error('boom');
    const failing: AsyncIterator<number> = {
      next: () => {
        throw failure;
      },
    };
    const pull = await pullWithin(failing, { idleTimeoutMs: 0, clock: stoppedClock, signal });
    expect(pull).toEqual({ type: 'error', error: failure });
  });

  it('returns aborted at once for an already aborted signal', async () => {
    const pull = await pullWithin(silent, {
      idleTimeoutMs: 1000,
      clock: stoppedClock,
      signal: AbortSignal.abort(),
    });
    expect(pull).toEqual({ type: 'aborted' });
  });
});

describe('idleTimeoutError', () => {
  it('is a retryable timeout naming the limit and the provider', () => {
    const error = idleTimeoutError('anthropic', 30_000);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, provider: 'anthropic' });
    expect(error.message).toContain('30000 ms');
  });
});
