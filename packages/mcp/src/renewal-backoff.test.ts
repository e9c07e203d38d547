import { describe, expect, it } from 'vitest';
import { RenewalBackoff } from './renewal-backoff.js';

const clock = { now: () => 0 };

describe('RenewalBackoff', () => {
  it('doubles from 1 s to 10 s at the top of its jitter range', () => {
    const backoff = new RenewalBackoff(clock, () => 1);
    const delays = Array.from({ length: 6 }, () => backoff.fail(new Error('x'), 'refused'));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('waits at least three quarters of each delay at the bottom of its range', () => {
    const backoff = new RenewalBackoff(clock, () => 0);
    const delays = Array.from({ length: 6 }, () => backoff.fail(new Error('x'), 'refused'));
    expect(delays).toEqual([750, 1500, 3000, 6000, 7500, 7500]);
  });

  it('spreads the clients of one recovering server instead of sending them back at once', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const firstDelays = Array.from({ length: 50 }, () =>
      new RenewalBackoff(clock, random).fail(new Error('x'), 'refused'),
    );
    for (const delay of firstDelays) {
      expect(delay).toBeGreaterThanOrEqual(750);
      expect(delay).toBeLessThanOrEqual(1000);
    }
    expect(new Set(firstDelays).size).toBeGreaterThan(25);
  });

  it('starts again at the first delay once a session answered', () => {
    const backoff = new RenewalBackoff(clock, () => 1);
    backoff.fail(new Error('x'), 'refused');
    backoff.fail(new Error('x'), 'refused');
    backoff.succeed();
    expect(backoff.fail(new Error('x'), 'refused')).toBe(1000);
  });
});
