import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CancelledError, ConfigError, ProviderError } from '../errors.js';
import { MAX_TIMEOUT_MS } from '../loop/limits.js';
import { ManualClock } from '../testing/manual-clock.js';
import { backoffDelay, retry } from './backoff.js';

const justBelowOne = 1 - Number.EPSILON;

describe('backoffDelay', () => {
  it('draws within [0, min(cap, base × 2^retry)) for any random value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (retry, random, baseMs, capMs) => {
          const delay = backoffDelay(retry, { baseMs, capMs, random: () => random });
          const ceiling = Math.min(capMs, baseMs * 2 ** retry);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
        },
      ),
    );
  });

  it('returns 0 when the random draw is 0', () => {
    expect(backoffDelay(5, { random: () => 0 })).toBe(0);
  });

  it('doubles the ceiling with each retry', () => {
    const delays = [0, 1, 2, 3].map((retry) =>
      backoffDelay(retry, { baseMs: 100, capMs: 1_000_000, random: () => 0.5 }),
    );
    expect(delays).toEqual([50, 100, 200, 400]);
  });

  it('never exceeds the cap however many retries', () => {
    expect(backoffDelay(30, { baseMs: 500, capMs: 8000, random: () => justBelowOne })).toBe(7999);
  });

  it('uses base 500 and cap 8000 by default', () => {
    expect([
      backoffDelay(0, { random: () => justBelowOne }),
      backoffDelay(10, { random: () => justBelowOne }),
    ]).toEqual([499, 7999]);
  });

  it('waits at least the retry-after the server asked for', () => {
    expect(backoffDelay(0, { random: () => 0 }, 3000)).toBe(3000);
  });

  it('keeps a jittered delay above the retry-after', () => {
    expect(backoffDelay(4, { baseMs: 1000, capMs: 20_000, random: () => 0.5 }, 10)).toBe(8000);
  });

  it('rounds a fractional retry-after up', () => {
    expect(backoffDelay(0, { random: () => 0 }, 1500.2)).toBe(1501);
  });

  it('returns undefined when the retry-after is above maxRetryAfterMs', () => {
    expect(backoffDelay(0, { maxRetryAfterMs: 5000 }, 5001)).toBeUndefined();
  });

  it('still waits a retry-after equal to maxRetryAfterMs', () => {
    expect(backoffDelay(0, { maxRetryAfterMs: 5000, random: () => 0 }, 5000)).toBe(5000);
  });

  it.each([-1, 1.5, Number.NaN])('rejects retry %d with a ConfigError naming retry', (retry) => {
    expect(() => backoffDelay(retry)).toThrow(
      expect.objectContaining({ name: 'ConfigError', field: 'retry' }),
    );
  });

  it.each(['baseMs', 'capMs', 'maxRetryAfterMs'])(
    'rejects a %s longer than a Node timer can wait, naming it',
    (field) => {
      // Node arms a longer timer for 1 ms: the "backoff" would retry at once.
      expect(() => backoffDelay(0, { [field]: MAX_TIMEOUT_MS + 1 })).toThrow(
        expect.objectContaining({ name: 'ConfigError', field }),
      );
      expect(() => backoffDelay(0, { [field]: MAX_TIMEOUT_MS })).not.toThrow();
    },
  );
});

/** A function failing `failures` times with `error`, then returning 'ok'. */
function flaky(failures: number, error: unknown = new Error('transient')) {
  const attempts: number[] = [];
  const fn = async (attempt: number): Promise<string> => {
    attempts.push(attempt);
    if (attempts.length <= failures) throw error;
    return 'ok';
  };
  return { fn, attempts };
}

/** Resolves every sleep of the clock as soon as it is requested. */
function autoAdvance(clock: ManualClock): () => void {
  const timer = setInterval(() => {
    if (clock.pendingTimers > 0) clock.advance(60_000);
  }, 0);
  return () => clearInterval(timer);
}

describe('retry', () => {
  it('retries a retryable error until it succeeds', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const { fn, attempts } = flaky(2);
    await expect(retry(fn, { clock, shouldRetry: () => true, random: () => 0.5 })).resolves.toBe(
      'ok',
    );
    stop();
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('sleeps the jittered backoff between attempts', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const { fn } = flaky(2);
    await retry(fn, { clock, shouldRetry: () => true, baseMs: 100, random: () => 0.5 });
    stop();
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it('does not retry an error shouldRetry rejects', async () => {
    const error = new ProviderError('bad', { kind: 'bad-request', status: 400 });
    const { fn, attempts } = flaky(5, error);
    const clock = new ManualClock();
    await expect(
      retry(fn, { clock, shouldRetry: (e) => ProviderError.isInstance(e) && e.retryable }),
    ).rejects.toBe(error);
    expect(attempts).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not retry at all without shouldRetry', async () => {
    const { fn, attempts } = flaky(1);
    await expect(retry(fn, { clock: new ManualClock() })).rejects.toThrow('transient');
    expect(attempts).toEqual([1]);
  });

  it('throws the last error after maxAttempts attempts', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const { fn, attempts } = flaky(10);
    await expect(
      retry(fn, { clock, maxAttempts: 4, shouldRetry: () => true, random: () => 0 }),
    ).rejects.toThrow('transient');
    stop();
    expect(attempts).toEqual([1, 2, 3, 4]);
  });

  it('waits the retry-after of the error as a minimum', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const error = new ProviderError('slow down', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 7000,
    });
    const { fn } = flaky(1, error);
    await retry(fn, {
      clock,
      shouldRetry: () => true,
      retryAfterMs: (e) => (ProviderError.isInstance(e) ? e.retryAfterMs : undefined),
      random: () => 0,
    });
    stop();
    expect(clock.sleeps).toEqual([7000]);
  });

  it('rethrows without waiting when the retry-after is above maxRetryAfterMs', async () => {
    const clock = new ManualClock();
    const error = new ProviderError('come back tomorrow', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 86_400_000,
    });
    const { fn, attempts } = flaky(1, error);
    await expect(
      retry(fn, { clock, shouldRetry: () => true, retryAfterMs: () => 86_400_000 }),
    ).rejects.toBe(error);
    expect(attempts).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('rethrows without waiting when the wait would pass the deadline', async () => {
    const clock = new ManualClock();
    const { fn, attempts } = flaky(1);
    await expect(
      retry(fn, {
        clock,
        shouldRetry: () => true,
        retryAfterMs: () => 2000,
        deadline: clock.now() + 1999,
      }),
    ).rejects.toThrow('transient');
    expect(attempts).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('waits when the wait ends exactly at the deadline', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const { fn } = flaky(1);
    await retry(fn, {
      clock,
      shouldRetry: () => true,
      retryAfterMs: () => 2000,
      random: () => 0,
      deadline: clock.now() + 2000,
    });
    stop();
    expect(clock.sleeps).toEqual([2000]);
  });

  it('stops retrying when the signal aborts during the wait', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const { fn, attempts } = flaky(5);
    const pending = retry(fn, {
      clock,
      signal: controller.signal,
      shouldRetry: () => true,
      onRetry: () => setTimeout(() => controller.abort(), 0),
    });
    await expect(pending).rejects.toSatisfy((error) => CancelledError.isInstance(error));
    expect(attempts).toEqual([1]);
  });

  it('does not retry once the signal has aborted', async () => {
    const controller = new AbortController();
    const clock = new ManualClock();
    const fn = async (): Promise<never> => {
      controller.abort();
      throw new Error('failed while aborting');
    };
    await expect(
      retry(fn, { clock, signal: controller.signal, shouldRetry: () => true }),
    ).rejects.toThrow('failed while aborting');
    expect(clock.sleeps).toEqual([]);
  });

  it('tells onRetry the error, attempt and delay before each wait', async () => {
    const clock = new ManualClock();
    const stop = autoAdvance(clock);
    const error = new Error('transient');
    const { fn } = flaky(2, error);
    const told: [unknown, number, number][] = [];
    await retry(fn, {
      clock,
      shouldRetry: () => true,
      baseMs: 100,
      random: () => 0.5,
      onRetry: (e, attempt, delay) => told.push([e, attempt, delay]),
    });
    stop();
    expect(told).toEqual([
      [error, 1, 50],
      [error, 2, 100],
    ]);
  });

  it('never sleeps longer than a Node timer can wait: a longer baseMs is a ConfigError', async () => {
    const clock = new ManualClock(0, { instant: true });
    const { fn, attempts } = flaky(1);
    const options = { clock, shouldRetry: () => true, random: () => 0.999 };
    await expect(
      retry(fn, { ...options, baseMs: 3_000_000_000, capMs: 3_000_000_000 }),
    ).rejects.toSatisfy((error) => ConfigError.isInstance(error) && error.field === 'baseMs');
    expect([attempts, clock.sleeps]).toEqual([[1], []]);
  });

  it.each([0, 1.5])('rejects maxAttempts %d with a ConfigError', async (maxAttempts) => {
    await expect(retry(async () => 'ok', { maxAttempts })).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && error.field === 'maxAttempts',
    );
  });
});
