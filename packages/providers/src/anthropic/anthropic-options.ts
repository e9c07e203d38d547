import type { Anthropic } from '@anthropic-ai/sdk';
import { ConfigError } from '@mh/core';
import { assertTimerMs } from '@mh/core/internal';

/**
 * `max_tokens` sent when a request sets no `maxOutputTokens`. Anthropic requires the field; 8192
 * is the output limit every current Claude model supports (older ones allowed more), so it never
 * fails validation and rarely truncates an agent turn.
 */
export const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 8192;

/** The smallest extended-thinking budget Anthropic accepts, in tokens. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

/** Options of `anthropic()`. Every field is optional; invalid values throw a `ConfigError`. */
export interface AnthropicOptions {
  /** API key; defaults to the `ANTHROPIC_API_KEY` environment variable. Not used with `client`. */
  readonly apiKey?: string;
  /** API base URL, e.g. a gateway or proxy; defaults to the SDK's (`ANTHROPIC_BASE_URL` or api.anthropic.com). */
  readonly baseURL?: string;
  /**
   * An existing `@anthropic-ai/sdk` client to use instead of building one. It is not modified:
   * every call still passes `maxRetries: 0` (and `timeoutMs`) per request.
   */
  readonly client?: Anthropic;
  /**
   * Put `cache_control` breakpoints on the stable prefix (system, tools, summary) and on the
   * newest message block, so each turn reads the previous one from the cache. Default true.
   */
  readonly cache?: boolean;
  /** Enables extended thinking with this budget (>= 1024 and below the max output tokens). */
  readonly thinking?: { readonly budgetTokens: number };
  /** `max_tokens` when a request sets no `maxOutputTokens` (default 8192). */
  readonly defaultMaxOutputTokens?: number;
  /**
   * Request timeout in milliseconds, passed to the SDK: it covers connecting and waiting for the
   * response headers, not the streamed body (`withRetry`'s idle timeout covers that).
   */
  readonly timeoutMs?: number;
}

/** `AnthropicOptions` after validation, with defaults applied. */
export interface ResolvedAnthropicOptions {
  /** The API key to build a client with; undefined when `client` is given. */
  readonly apiKey: string | undefined;
  /** Base URL to build a client with, when given. */
  readonly baseURL: string | undefined;
  /** The caller's client, when given. */
  readonly client: Anthropic | undefined;
  /** Whether cache breakpoints are sent. */
  readonly cache: boolean;
  /** Thinking budget in tokens, when thinking is on. */
  readonly thinkingBudgetTokens: number | undefined;
  /** `max_tokens` fallback. */
  readonly defaultMaxOutputTokens: number;
  /** SDK request timeout in milliseconds, when set. */
  readonly timeoutMs: number | undefined;
}

const KNOWN_OPTIONS: readonly string[] = [
  'apiKey',
  'baseURL',
  'client',
  'cache',
  'thinking',
  'defaultMaxOutputTokens',
  'timeoutMs',
];

function positiveInteger(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(field, `expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function nonEmptyString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(field, 'expected a non-empty string');
  }
  return value;
}

function checkClient(options: AnthropicOptions): Anthropic | undefined {
  const client: unknown = options.client;
  if (client === undefined) return undefined;
  const messages = (client as { messages?: { create?: unknown } } | null)?.messages;
  if (typeof client !== 'object' || client === null || typeof messages?.create !== 'function') {
    throw new ConfigError('client', 'expected an Anthropic client from @anthropic-ai/sdk');
  }
  // A key or URL next to a client would be silently ignored: say so instead.
  if (options.apiKey !== undefined || options.baseURL !== undefined) {
    const field = options.apiKey !== undefined ? 'apiKey' : 'baseURL';
    throw new ConfigError(field, 'set it on the client you pass, not next to it');
  }
  return options.client;
}

function checkBaseURL(value: unknown): string | undefined {
  const baseURL = nonEmptyString(value, 'baseURL');
  if (baseURL === undefined) return undefined;
  let protocol: string;
  try {
    protocol = new URL(baseURL).protocol;
  } catch {
    throw new ConfigError('baseURL', `expected an absolute http(s) URL, got ${baseURL}`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ConfigError('baseURL', `expected an http or https URL, got ${baseURL}`);
  }
  return baseURL;
}

function checkThinking(value: unknown, maxOutputTokens: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new ConfigError('thinking', 'expected { budgetTokens: number }');
  }
  const budget = positiveInteger(
    (value as { budgetTokens?: unknown }).budgetTokens,
    'thinking.budgetTokens',
  );
  if (budget === undefined) throw new ConfigError('thinking.budgetTokens', 'required');
  if (budget < ANTHROPIC_MIN_THINKING_BUDGET) {
    throw new ConfigError(
      'thinking.budgetTokens',
      `must be at least ${ANTHROPIC_MIN_THINKING_BUDGET}, got ${budget}`,
    );
  }
  if (budget >= maxOutputTokens) {
    throw new ConfigError(
      'thinking.budgetTokens',
      `must be below defaultMaxOutputTokens (${maxOutputTokens}), got ${budget}`,
    );
  }
  return budget;
}

/**
 * Validates `anthropic()`'s options and applies defaults. Throws a `ConfigError` naming the first
 * bad field; a missing key names `ANTHROPIC_API_KEY`.
 */
export function resolveAnthropicOptions(
  options: AnthropicOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedAnthropicOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError('options', 'expected an options object');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new ConfigError(key, `unknown option (known: ${KNOWN_OPTIONS.join(', ')})`);
    }
  }
  const client = checkClient(options);
  const baseURL = checkBaseURL(options.baseURL);
  let apiKey = nonEmptyString(options.apiKey, 'apiKey');
  if (client === undefined && apiKey === undefined) {
    apiKey = env.ANTHROPIC_API_KEY?.trim() ? env.ANTHROPIC_API_KEY : undefined;
    if (apiKey === undefined) {
      throw new ConfigError(
        'apiKey',
        'no Anthropic API key: set the ANTHROPIC_API_KEY environment variable or pass apiKey',
      );
    }
  }
  if (options.cache !== undefined && typeof options.cache !== 'boolean') {
    throw new ConfigError('cache', 'expected a boolean');
  }
  const defaultMaxOutputTokens =
    positiveInteger(options.defaultMaxOutputTokens, 'defaultMaxOutputTokens') ??
    ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
  // The SDK takes whole milliseconds only.
  const timeoutMs = positiveInteger(options.timeoutMs, 'timeoutMs');
  // The SDK arms a timer with it: a longer one would fire after 1 ms.
  if (timeoutMs !== undefined) assertTimerMs('timeoutMs', timeoutMs);
  return {
    apiKey,
    baseURL,
    client,
    cache: options.cache ?? true,
    thinkingBudgetTokens: checkThinking(options.thinking, defaultMaxOutputTokens),
    defaultMaxOutputTokens,
    timeoutMs,
  };
}
