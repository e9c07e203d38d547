import { ConfigError } from '@mh/core';

/**
 * A deterministic pseudo-random source (mulberry32): the same seed gives the same sequence on
 * every machine and Node version, so the workspace is the same everywhere.
 */
export class SeededRandom {
  #state: number;

  /** Starts the sequence at `seed` (an integer in [0, 2^32)). */
  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
      throw new ConfigError('seed', `expected an integer in [0, 2^32), got ${seed}`);
    this.#state = seed;
  }

  /** The next number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new ConfigError('items', 'expected a non-empty list');
    return item;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index--) {
      const other = Math.floor(this.next() * (index + 1));
      [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
    }
    return copy;
  }

  /** `count` distinct elements, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    if (count > items.length) throw new ConfigError('count', `expected at most ${items.length}`);
    return this.shuffle(items).slice(0, count);
  }

  /** An amount with two decimals in [min, max). */
  amount(min: number, max: number): number {
    return Math.round((min + this.next() * (max - min)) * 100) / 100;
  }

  /** `length` characters from `alphabet`. */
  token(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let text = '';
    for (let index = 0; index < length; index++) text += this.pick([...alphabet]);
    return text;
  }
}
