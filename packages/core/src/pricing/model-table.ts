import { ConfigError } from '../errors.js';
import { shownValue } from '../support/option-checks.js';
import { lookupModel } from './model-lookup.js';

/** What the loop and compaction need to know about a model. */
export interface ModelInfo {
  /** Context window in tokens (prompt plus output). */
  readonly contextWindow: number;
  /** Largest output the model may generate in one call, in tokens. */
  readonly maxOutputTokens: number;
}

/** Published limits of current Anthropic and OpenAI models. */
const DEFAULT_MODELS: Readonly<Record<string, ModelInfo>> = {
  'claude-opus-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-1': { contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-3-5-haiku': { contextWindow: 200_000, maxOutputTokens: 8_192 },
  'gpt-5.1': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-mini': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-nano': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-4.1': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o4-mini': { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'gpt-4o': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-mini': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  fake: { contextWindow: 200_000, maxOutputTokens: 8_192 },
};

function checkInfo(model: string, info: unknown): ModelInfo {
  if (info === null || typeof info !== 'object')
    throw new ConfigError(`models.${model}`, 'expected an object');
  for (const key of ['contextWindow', 'maxOutputTokens'] as const) {
    const value = (info as Record<string, unknown>)[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new ConfigError(
        `models.${model}.${key}`,
        `expected a positive integer, got ${shownValue(value)}`,
      );
    }
  }
  return info as ModelInfo;
}

/** A table of model limits, looked up as `lookupModel` describes; extend it with `with`. */
export class ModelTable {
  readonly #models: ReadonlyMap<string, ModelInfo>;

  constructor(models: Readonly<Record<string, ModelInfo>>) {
    if (models === null || typeof models !== 'object' || Array.isArray(models)) {
      throw new ConfigError('models', 'expected an object of model limits');
    }
    const map = new Map<string, ModelInfo>();
    for (const [model, info] of Object.entries(models))
      map.set(model, Object.freeze({ ...checkInfo(model, info) }));
    this.#models = map;
  }

  /** A new table with `models` added or replacing existing entries. */
  with(models: Readonly<Record<string, ModelInfo>>): ModelTable {
    return new ModelTable({ ...Object.fromEntries(this.#models), ...models });
  }

  /** The limits of a model, or undefined when unknown. */
  lookup(model: string): ModelInfo | undefined {
    return lookupModel(this.#models, model);
  }
}

/** The built-in model table. */
export const defaultModels: ModelTable = new ModelTable(DEFAULT_MODELS);
