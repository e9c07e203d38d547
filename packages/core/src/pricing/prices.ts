import { ConfigError } from '../errors.js';
import type { Usage } from '../messages/usage.js';
import { shownValue } from '../support/option-checks.js';
import { lookupModel } from './model-lookup.js';

/** Prices of one model, in USD per million tokens. */
export interface ModelPrice {
  /** Uncached input. */
  readonly inputPerMTok: number;
  /** Output (reasoning included). */
  readonly outputPerMTok: number;
  /** Cache reads; defaults to the input price when absent. */
  readonly cacheReadPerMTok?: number;
  /** Cache writes; defaults to the input price when absent. */
  readonly cacheWritePerMTok?: number;
}

/**
 * List prices, USD per million tokens, as published by the vendors. Anthropic cache writes are the
 * 5-minute rate (1.25 × input); OpenAI has no cache-write charge.
 */
const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': {
    inputPerMTok: 5,
    outputPerMTok: 25,
    cacheReadPerMTok: 0.5,
    cacheWritePerMTok: 6.25,
  },
  'claude-opus-4-1': {
    inputPerMTok: 15,
    outputPerMTok: 75,
    cacheReadPerMTok: 1.5,
    cacheWritePerMTok: 18.75,
  },
  'claude-sonnet-4-5': {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
  },
  'claude-sonnet-4': {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
  },
  'claude-haiku-4-5': {
    inputPerMTok: 1,
    outputPerMTok: 5,
    cacheReadPerMTok: 0.1,
    cacheWritePerMTok: 1.25,
  },
  'claude-3-5-haiku': {
    inputPerMTok: 0.8,
    outputPerMTok: 4,
    cacheReadPerMTok: 0.08,
    cacheWritePerMTok: 1,
  },
  'gpt-5.1': {
    inputPerMTok: 1.25,
    outputPerMTok: 10,
    cacheReadPerMTok: 0.125,
    cacheWritePerMTok: 0,
  },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125, cacheWritePerMTok: 0 },
  'gpt-5-mini': {
    inputPerMTok: 0.25,
    outputPerMTok: 2,
    cacheReadPerMTok: 0.025,
    cacheWritePerMTok: 0,
  },
  'gpt-5-nano': {
    inputPerMTok: 0.05,
    outputPerMTok: 0.4,
    cacheReadPerMTok: 0.005,
    cacheWritePerMTok: 0,
  },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 },
  'gpt-4.1-mini': {
    inputPerMTok: 0.4,
    outputPerMTok: 1.6,
    cacheReadPerMTok: 0.1,
    cacheWritePerMTok: 0,
  },
  o3: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 },
  'o4-mini': {
    inputPerMTok: 1.1,
    outputPerMTok: 4.4,
    cacheReadPerMTok: 0.275,
    cacheWritePerMTok: 0,
  },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25, cacheWritePerMTok: 0 },
  'gpt-4o-mini': {
    inputPerMTok: 0.15,
    outputPerMTok: 0.6,
    cacheReadPerMTok: 0.075,
    cacheWritePerMTok: 0,
  },
  fake: { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
};

function checkPrice(model: string, price: unknown): ModelPrice {
  const field = `pricing.${model}`;
  if (price === null || typeof price !== 'object')
    throw new ConfigError(field, 'expected a price object');
  const record = price as Record<string, unknown>;
  for (const key of ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok']) {
    const value = record[key];
    const optional = key.startsWith('cache');
    if (value === undefined && optional) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(
        `${field}.${key}`,
        `expected a non-negative number, got ${shownValue(value)}`,
      );
    }
  }
  return record as unknown as ModelPrice;
}

/** A table of model prices, looked up as `lookupModel` describes. */
export class PricingTable {
  readonly #prices: ReadonlyMap<string, ModelPrice>;

  constructor(prices: Readonly<Record<string, ModelPrice>>) {
    if (prices === null || typeof prices !== 'object' || Array.isArray(prices)) {
      throw new ConfigError('pricing', 'expected an object of model prices');
    }
    const map = new Map<string, ModelPrice>();
    for (const [model, price] of Object.entries(prices))
      map.set(model, Object.freeze({ ...checkPrice(model, price) }));
    this.#prices = map;
  }

  /** A new table with `prices` added or replacing existing entries. */
  with(prices: Readonly<Record<string, ModelPrice>>): PricingTable {
    return new PricingTable({ ...Object.fromEntries(this.#prices), ...prices });
  }

  /** The price of a model, or undefined when unknown. */
  lookup(model: string): ModelPrice | undefined {
    return lookupModel(this.#prices, model);
  }

  /** Cost of `usage` on `model` in USD, or undefined when the model has no price. */
  cost(model: string, usage: Usage): number | undefined {
    const price = this.lookup(model);
    return price === undefined ? undefined : costOf(price, usage);
  }
}

/** Cost of `usage` at `price`, in USD. */
export function costOf(price: ModelPrice, usage: Usage): number {
  return (
    (usage.inputTokens * price.inputPerMTok +
      usage.outputTokens * price.outputPerMTok +
      usage.cacheReadTokens * (price.cacheReadPerMTok ?? price.inputPerMTok) +
      usage.cacheWriteTokens * (price.cacheWritePerMTok ?? price.inputPerMTok)) /
    1_000_000
  );
}

/** The built-in price list; extend it with `defaultPricing.with({...})`. */
export const defaultPricing: PricingTable = new PricingTable(DEFAULT_PRICES);
