import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { newcombeInterval, passAtK, passHatK, wilsonInterval } from './stats.js';

function rounded(interval: { low: number; high: number } | undefined, digits = 3): number[] {
  if (!interval) throw new Error('no interval');
  return [Number(interval.low.toFixed(digits)), Number(interval.high.toFixed(digits))];
}

describe('wilsonInterval', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
  // seven methods", Statistics in Medicine 17:857-872, Table II, method 3 (Wilson score).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('matches the textbook values for %i/%i', (k, n, low, high) => {
    expect(rounded(wilsonInterval(k, n), 4)).toEqual([low, high]);
  });

  it.each([
    [8, 10, 0.49, 0.943],
    [0, 3, 0, 0.561],
    [1, 3, 0.061, 0.792],
    [2, 3, 0.208, 0.939],
    [3, 3, 0.439, 1],
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: a Wilson bound, not log10(e)
    [0, 5, 0, 0.434],
    [5, 5, 0.566, 1],
    [10, 10, 0.722, 1],
    [48, 48, 0.926, 1],
    [44, 48, 0.804, 0.967],
    [40, 48, 0.704, 0.913],
    [0, 60, 0, 0.06],
  ])('gives %i/%i the reference interval', (k, n, low, high) => {
    expect(rounded(wilsonInterval(k, n))).toEqual([low, high]);
  });

  it('has exact bounds 0 and 1 at the extremes', () => {
    expect(wilsonInterval(0, 7)?.low).toBe(0);
    expect(wilsonInterval(7, 7)?.high).toBe(1);
  });

  it('gives no interval without trials', () => {
    expect(wilsonInterval(0, 0)).toBeUndefined();
  });

  it('rejects impossible counts with a ConfigError naming the field', () => {
    expect(() => wilsonInterval(4, 3)).toThrow(ConfigError);
    expect(() => wilsonInterval(-1, 3)).toThrow(/successes/);
    expect(() => wilsonInterval(1, 2.5)).toThrow(/trials/);
    expect(() => wilsonInterval(1, 3, 0)).toThrow(/z/);
  });
});

describe('newcombeInterval', () => {
  // Newcombe (1998), "Interval estimation for the difference between independent proportions",
  // Statistics in Medicine 17:873-890, Table II, method 10; there the difference is p1 − p2, here
  // current − baseline, so the baseline is the paper's second sample.
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
  ])('matches the paper for %i/%i − %i/%i', (k1, n1, k2, n2, low, high) => {
    const interval = newcombeInterval({
      current: { successes: k1, trials: n1 },
      baseline: { successes: k2, trials: n2 },
    });
    expect(rounded(interval, 4)).toEqual([low, high]);
  });

  it('sees 3/3 → 0/3 as a drop and 3/3 → 2/3 as noise', () => {
    const drop = newcombeInterval({
      baseline: { successes: 3, trials: 3 },
      current: { successes: 0, trials: 3 },
    });
    const flip = newcombeInterval({
      baseline: { successes: 3, trials: 3 },
      current: { successes: 2, trials: 3 },
    });
    expect(drop?.high).toBeLessThan(0);
    expect(flip?.low).toBeLessThan(0);
    expect(flip?.high).toBeGreaterThan(0);
  });

  it('gives no interval when one side has no trials', () => {
    expect(
      newcombeInterval({
        baseline: { successes: 0, trials: 0 },
        current: { successes: 1, trials: 1 },
      }),
    ).toBeUndefined();
  });
});

describe('passAtK and passHatK', () => {
  it('gives the values of the n = 3, c = 2 example', () => {
    expect(passAtK(2, 3, 1)).toBeCloseTo(2 / 3, 10);
    expect(passAtK(2, 3, 2)).toBe(1);
    expect(passHatK(2, 3, 2)).toBeCloseTo(1 / 3, 10);
    expect(passHatK(2, 3, 3)).toBe(0);
  });

  it('agrees at k = 1 and for all-pass and all-fail', () => {
    expect(passAtK(7, 10, 1)).toBeCloseTo(passHatK(7, 10, 1), 12);
    expect(passAtK(0, 5, 3)).toBe(0);
    expect(passHatK(5, 5, 5)).toBe(1);
  });

  it('rejects k beyond the trials', () => {
    expect(() => passAtK(1, 3, 4)).toThrow(/k/);
    expect(() => passHatK(1, 3, 0)).toThrow(ConfigError);
  });
});
