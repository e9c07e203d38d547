/**
 * Token usage of one model call or a sum of several. `inputTokens` excludes cached tokens, so the
 * full prompt size is `inputTokens + cacheReadTokens + cacheWriteTokens` (providers that count
 * cached tokens inside input, like OpenAI, are normalised by their adapter).
 */
export interface Usage {
  /** Uncached prompt tokens. */
  readonly inputTokens: number;
  /** Generated tokens, reasoning included. */
  readonly outputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  readonly cacheReadTokens: number;
  /** Prompt tokens written to the provider's cache. */
  readonly cacheWriteTokens: number;
}

/** Usage of nothing. */
export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** Sums two usages field by field. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** All tokens counted in a usage: prompt (cached or not) plus output. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** The full prompt size of a call: uncached input plus cache reads and writes. */
export function promptTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
