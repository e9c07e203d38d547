import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentile } from './percentile.js';

describe('percentile', () => {
  it('is undefined for no values', () => {
    expect(percentile([], 50)).toBeUndefined();
  });

  it('takes the value of rank ceil(p/100 * n)', () => {
    const values = [15, 20, 35, 40, 50];
    expect(percentile(values, 5)).toBe(15);
    expect(percentile(values, 30)).toBe(20);
    expect(percentile(values, 40)).toBe(20);
    expect(percentile(values, 50)).toBe(35);
    expect(percentile(values, 100)).toBe(50);
  });

  it('gives the largest of ten values as their p95', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
  });

  it('does not depend on input order and does not sort the input', () => {
    const values = [9, 1, 5];
    expect(percentile(values, 50)).toBe(5);
    expect(values).toEqual([9, 1, 5]);
  });

  it('clamps p to [0, 100]', () => {
    expect(percentile([3, 1, 2], -5)).toBe(1);
    expect(percentile([3, 1, 2], 500)).toBe(3);
  });

  it('always returns an observed value, monotonic in p', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { minLength: 1 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (values, p, q) => {
          const low = percentile(values, Math.min(p, q)) as number;
          const high = percentile(values, Math.max(p, q)) as number;
          return values.includes(low) && low <= high;
        },
      ),
    );
  });
});
