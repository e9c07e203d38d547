import { describe, expect, it } from 'vitest';
import { collect, collectSettled } from './collect.js';

describe('collect', () => {
  it('returns every item in order', async () => {
    async function* numbers(): AsyncGenerator<number> {
      yield 1;
      yield 2;
      yield 3;
    }
    expect(await collect(numbers())).toEqual([1, 2, 3]);
  });

  it('rejects with the error the stream throws', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('broken stream');
    }
    await expect(collect(failing())).rejects.toThrow('broken stream');
  });
});

describe('collectSettled', () => {
  async function* failing(): AsyncGenerator<number> {
    yield 1;
    yield 2;
    throw new Error('broken stream');
  }

  it('returns the items before the error, and the error, without rejecting', async () => {
    const { items, error } = await collectSettled(failing());
    expect(items).toEqual([1, 2]);
    expect(error).toEqual(new Error('broken stream'));
  });

  it('returns every item and no error for a stream that ends, into the array it was given', async () => {
    const into: number[] = [];
    const settled = await collectSettled(
      (async function* () {
        yield 7;
      })(),
      into,
    );
    expect(settled).toEqual({ items: [7] });
    expect(settled.items).toBe(into);
  });
});
