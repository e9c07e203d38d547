import { describe, expect, it } from 'vitest';
import type { Usage } from '../messages/usage.js';
import { fieldOf } from '../testing/field-of.js';
import { costOf, defaultPricing, type ModelPrice, PricingTable } from './prices.js';

const usage = (fields: Partial<Usage>): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  ...fields,
});

describe('PricingTable.lookup', () => {
  const table = new PricingTable({
    'model-a': { inputPerMTok: 1, outputPerMTok: 2 },
    'model-a-mini': { inputPerMTok: 0.1, outputPerMTok: 0.2 },
  });

  it('finds a model by its exact id', () => {
    expect(table.lookup('model-a-mini')?.inputPerMTok).toBe(0.1);
  });

  it('finds a dated model id through its prefix', () => {
    expect(table.lookup('model-a-20250929')?.inputPerMTok).toBe(1);
  });

  it('prefers the longest matching prefix', () => {
    expect(table.lookup('model-a-mini-2025-04-14')?.inputPerMTok).toBe(0.1);
  });

  it('does not match a prefix that is not followed by a dash', () => {
    expect(table.lookup('model-ab')).toBeUndefined();
  });

  it('returns undefined for an unknown model', () => {
    expect(table.lookup('other')).toBeUndefined();
  });

  it('prices dated Claude ids at their family price in the built-in table', () => {
    expect(defaultPricing.lookup('claude-sonnet-4-5-20250929')).toEqual(
      defaultPricing.lookup('claude-sonnet-4-5'),
    );
  });

  it('does not price claude-sonnet-4-5 as claude-sonnet-4 in the built-in table', () => {
    expect(defaultPricing.lookup('claude-sonnet-4-5-20250929')?.cacheWritePerMTok).toBe(3.75);
    expect(defaultPricing.lookup('claude-opus-4-5-20251101')?.inputPerMTok).toBe(5);
  });

  it('prices gpt-4o-mini snapshots as gpt-4o-mini, not gpt-4o, in the built-in table', () => {
    expect(defaultPricing.lookup('gpt-4o-mini-2024-07-18')?.inputPerMTok).toBe(0.15);
  });
});

describe('PricingTable.with', () => {
  const base = new PricingTable({ old: { inputPerMTok: 1, outputPerMTok: 1 } });

  it('adds new models', () => {
    const extended = base.with({ added: { inputPerMTok: 2, outputPerMTok: 3 } });
    expect([extended.lookup('old')?.inputPerMTok, extended.lookup('added')?.inputPerMTok]).toEqual([
      1, 2,
    ]);
  });

  it('replaces existing models', () => {
    expect(
      base.with({ old: { inputPerMTok: 9, outputPerMTok: 9 } }).lookup('old')?.inputPerMTok,
    ).toBe(9);
  });

  it('leaves the original table unchanged', () => {
    base.with({
      old: { inputPerMTok: 9, outputPerMTok: 9 },
      added: { inputPerMTok: 2, outputPerMTok: 3 },
    });
    expect([base.lookup('old')?.inputPerMTok, base.lookup('added')]).toEqual([1, undefined]);
  });

  it('extends the built-in table', () => {
    const extended = defaultPricing.with({ 'my-model': { inputPerMTok: 4, outputPerMTok: 8 } });
    expect([
      extended.lookup('my-model')?.outputPerMTok,
      extended.lookup('gpt-5')?.outputPerMTok,
    ]).toEqual([8, 10]);
  });

  it('validates the added prices', () => {
    expect(fieldOf(() => base.with({ bad: { inputPerMTok: -1, outputPerMTok: 1 } }))).toBe(
      'pricing.bad.inputPerMTok',
    );
  });
});

describe('PricingTable validation', () => {
  it.each([
    [{ inputPerMTok: -1, outputPerMTok: 1 }, 'pricing.m.inputPerMTok'],
    [{ inputPerMTok: 1, outputPerMTok: -0.5 }, 'pricing.m.outputPerMTok'],
    [{ inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: -1 }, 'pricing.m.cacheReadPerMTok'],
    [
      { inputPerMTok: 1, outputPerMTok: 1, cacheWritePerMTok: Number.NaN },
      'pricing.m.cacheWritePerMTok',
    ],
    [{ inputPerMTok: 1 }, 'pricing.m.outputPerMTok'],
    [{ inputPerMTok: '1', outputPerMTok: 1 }, 'pricing.m.inputPerMTok'],
  ])('rejects %o with a ConfigError naming %s', (price, field) => {
    expect(fieldOf(() => new PricingTable({ m: price as unknown as ModelPrice }))).toBe(field);
  });

  it('rejects a price that is not an object', () => {
    expect(fieldOf(() => new PricingTable({ m: null as unknown as ModelPrice }))).toBe('pricing.m');
  });

  it('accepts a free model', () => {
    expect(
      new PricingTable({ m: { inputPerMTok: 0, outputPerMTok: 0 } }).lookup('m'),
    ).toBeDefined();
  });

  it('is not changed by later edits to the prices object it was given', () => {
    const price = { inputPerMTok: 1, outputPerMTok: 1 };
    const table = new PricingTable({ m: price });
    price.inputPerMTok = 100;
    expect(table.lookup('m')?.inputPerMTok).toBe(1);
  });
});

describe('costOf', () => {
  const price: ModelPrice = {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
  };

  it('prices each kind of token at its own rate per million', () => {
    expect(
      costOf(
        price,
        usage({
          inputTokens: 1_000_000,
          outputTokens: 1_000_000,
          cacheReadTokens: 1_000_000,
          cacheWriteTokens: 1_000_000,
        }),
      ),
    ).toBeCloseTo(22.05, 12);
  });

  it('scales linearly with tokens', () => {
    expect(costOf(price, usage({ inputTokens: 2000, outputTokens: 500 }))).toBeCloseTo(0.0135, 12);
  });

  it('charges cache tokens at the input price when no cache price is given', () => {
    const plain: ModelPrice = { inputPerMTok: 2, outputPerMTok: 8 };
    expect(
      costOf(plain, usage({ cacheReadTokens: 500_000, cacheWriteTokens: 500_000 })),
    ).toBeCloseTo(2, 12);
  });

  it('charges nothing for no usage', () => {
    expect(costOf(price, usage({}))).toBe(0);
  });
});

describe('PricingTable.cost', () => {
  it('prices usage on a known model', () => {
    const table = new PricingTable({ m: { inputPerMTok: 10, outputPerMTok: 20 } });
    expect(
      table.cost('m-20250101', usage({ inputTokens: 100_000, outputTokens: 100_000 })),
    ).toBeCloseTo(3, 12);
  });

  it('returns undefined for a model without a price', () => {
    expect(defaultPricing.cost('unknown-model', usage({ inputTokens: 1 }))).toBeUndefined();
  });
});
