import { ConfigError } from '@mh/core';

/** The normal quantile of a two-sided 95% interval. */
export const Z_95 = 1.959964;

/** A closed interval of proportions, both ends in [0, 1]. */
export interface Interval {
  /** Lower bound. */
  readonly low: number;
  /** Upper bound. */
  readonly high: number;
}

function assertCount(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(field, 'expected a non-negative integer');
  }
}

function assertCounts(successes: unknown, trials: unknown): void {
  assertCount(successes, 'successes');
  assertCount(trials, 'trials');
  if ((successes as number) > (trials as number))
    throw new ConfigError('successes', 'expected at most as many successes as trials');
}

/**
 * The Wilson score interval of `successes` out of `trials` (Wilson 1927), 95% by default: with
 * p = k/n, centre = (p + z²/2n) / (1 + z²/n) and half-width = z/(1 + z²/n) · √(p(1−p)/n + z²/4n²).
 * Unlike the normal (Wald) or Student-t interval it stays inside [0, 1] and keeps a width at
 * 0/n and n/n, which is what three repeats of a case produce. `undefined` for zero trials.
 */
export function wilsonInterval(
  successes: number,
  trials: number,
  z: number = Z_95,
): Interval | undefined {
  assertCounts(successes, trials);
  if (typeof z !== 'number' || !(z > 0) || !Number.isFinite(z))
    throw new ConfigError('z', 'expected a positive number');
  if (trials === 0) return undefined;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  // The bounds are exactly 0 and 1 at k = 0 and k = n; rounding may put them a hair outside.
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === trials ? 1 : Math.min(1, centre + half),
  };
}

/** Two proportions, before and after, as counts. */
export interface ProportionPair {
  /** Successes and trials of the baseline. */
  readonly baseline: { readonly successes: number; readonly trials: number };
  /** Successes and trials of the current run. */
  readonly current: { readonly successes: number; readonly trials: number };
}

/**
 * A 95% interval (by default) for the difference current − baseline of two independent
 * proportions, by Newcombe's hybrid score method (Newcombe 1998, "Interval estimation for the
 * difference between independent proportions", method 10): it combines the two Wilson intervals,
 * so it has their good coverage at small n and at 0% and 100%. An interval entirely below 0 is
 * evidence of a drop. `undefined` when either side has no trials.
 */
export function newcombeInterval(pair: ProportionPair, z: number = Z_95): Interval | undefined {
  if (pair === null || typeof pair !== 'object') throw new ConfigError('pair', 'expected counts');
  const { baseline, current } = pair;
  if (baseline === null || typeof baseline !== 'object')
    throw new ConfigError('pair.baseline', 'expected { successes, trials }');
  if (current === null || typeof current !== 'object')
    throw new ConfigError('pair.current', 'expected { successes, trials }');
  const before = wilsonInterval(baseline.successes, baseline.trials, z);
  const after = wilsonInterval(current.successes, current.trials, z);
  if (!before || !after) return undefined;
  const p1 = baseline.successes / baseline.trials;
  const p2 = current.successes / current.trials;
  const difference = p2 - p1;
  return {
    low: difference - Math.sqrt((p2 - after.low) ** 2 + (before.high - p1) ** 2),
    high: difference + Math.sqrt((after.high - p2) ** 2 + (p1 - before.low) ** 2),
  };
}

/** The binomial coefficient C(n, k) as a float (exact for the small n of eval repeats). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let index = 1; index <= Math.min(k, n - k); index++)
    result = (result * (n - Math.min(k, n - k) + index)) / index;
  return result;
}

function assertK(k: unknown, trials: number): asserts k is number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1)
    throw new ConfigError('k', 'expected a positive integer');
  if (k > trials) throw new ConfigError('k', `expected at most the ${trials} trials`);
}

/**
 * pass@k: the chance that at least one of k tries drawn from the n recorded ones succeeds,
 * 1 − C(n−c, k) / C(n, k) (the unbiased estimator of Chen et al. 2021).
 */
export function passAtK(successes: number, trials: number, k: number): number {
  assertCounts(successes, trials);
  assertK(k, trials);
  return 1 - choose(trials - successes, k) / choose(trials, k);
}

/**
 * pass^k: the chance that all of k tries drawn from the n recorded ones succeed,
 * C(c, k) / C(n, k) (τ-bench, Yao et al. 2024): the reliability number.
 */
export function passHatK(successes: number, trials: number, k: number): number {
  assertCounts(successes, trials);
  assertK(k, trials);
  return choose(successes, k) / choose(trials, k);
}
