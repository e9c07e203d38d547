import type { Usage } from '@mh/core';

/** Token counts as Chat Completions reports them (compatible servers add or omit fields). */
export interface ChatUsageFields {
  /** Prompt tokens, cached ones included. */
  readonly prompt_tokens?: number | null;
  /** Generated tokens, reasoning included. */
  readonly completion_tokens?: number | null;
  /** `cached_tokens`: the part of the prompt served from the cache. */
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | null } | null;
  /** DeepSeek's older name for cached prompt tokens. */
  readonly prompt_cache_hit_tokens?: number | null;
}

/** Token counts as the Responses API reports them. */
export interface ResponsesUsageFields {
  /** Input tokens, cached ones included. */
  readonly input_tokens?: number | null;
  /** Generated tokens, reasoning included. */
  readonly output_tokens?: number | null;
  /** `cached_tokens`: the part of the input served from the cache. */
  readonly input_tokens_details?: { readonly cached_tokens?: number | null } | null;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function normalise(prompt: number, cached: number, output: number): Usage {
  const cacheReadTokens = Math.min(cached, prompt);
  return {
    inputTokens: prompt - cacheReadTokens,
    outputTokens: output,
    cacheReadTokens,
    cacheWriteTokens: 0,
  };
}

/**
 * Core usage from a Chat Completions `usage` object. OpenAI counts cached tokens inside
 * `prompt_tokens`; core's `inputTokens` excludes them, so they are moved to `cacheReadTokens`.
 */
export function chatUsage(usage: ChatUsageFields): Usage {
  const cached =
    usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? undefined;
  return normalise(count(usage.prompt_tokens), count(cached), count(usage.completion_tokens));
}

/** Core usage from a Responses `usage` object (`input_tokens` includes the cached ones). */
export function responsesUsage(usage: ResponsesUsageFields): Usage {
  return normalise(
    count(usage.input_tokens),
    count(usage.input_tokens_details?.cached_tokens),
    count(usage.output_tokens),
  );
}
