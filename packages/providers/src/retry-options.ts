import { type Clock, ConfigError, type ProviderError, systemClock } from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';

/** What `onRetry` is told before each wait. */
export interface RetryInfo {
  /** The attempt that just failed, 1-based (the first retry reports 1, like core's `retry`). */
  readonly attempt: number;
  /** Why it failed: always a retryable `ProviderError`. */
  readonly error: ProviderError;
  /** The wait before the next attempt, in milliseconds (at least the error's `retryAfterMs`). */
  readonly delayMs: number;
}

/**
 * Options of `withRetry`. Every field is validated; a bad one throws `ConfigError` naming it. A
 * duration is at most `MAX_TIMEOUT_MS` (2^31 - 1 ms, the longest timer Node can arm).
 */
export interface WithRetryOptions {
  /** Total attempts per model call, the first included: an integer >= 1 (default 3). */
  readonly maxAttempts?: number;
  /** First backoff ceiling in milliseconds, doubled per retry (default 500). */
  readonly baseDelayMs?: number;
  /** Largest backoff ceiling in milliseconds (default 8,000). */
  readonly maxDelayMs?: number;
  /**
   * A server's retry-after above this many milliseconds is not waited for (default 60,000): the
   * error is rethrown at once, `retryAfterMs` intact, so the caller decides. `Infinity` waits
   * for any retry-after a timer can wait (up to `MAX_TIMEOUT_MS`).
   */
  readonly maxRetryAfterMs?: number;
  /**
   * An attempt that yields no event for this many milliseconds is aborted and retried as a
   * `timeout` error (default 60,000; 0 disables). Only yielded events reset the timer: keep-alive
   * pings an adapter does not forward (Anthropic's SDK drops them) do not, so leave room for long
   * silent phases such as extended thinking or server-side tools.
   */
  readonly idleTimeoutMs?: number;
  /** Time source for backoff and the idle timer (default: the system clock). */
  readonly clock?: Clock;
  /** Random source in [0, 1) for the jitter (default `Math.random`). */
  readonly random?: () => number;
  /** Told before each wait; an exception thrown here ends the call with that exception. */
  readonly onRetry?: (info: RetryInfo) => void;
}

/** `WithRetryOptions` with every default filled in. */
export interface RetrySettings {
  /** Total attempts per model call. */
  readonly maxAttempts: number;
  /** First backoff ceiling, in milliseconds. */
  readonly baseDelayMs: number;
  /** Largest backoff ceiling, in milliseconds. */
  readonly maxDelayMs: number;
  /** Longest retry-after waited for, in milliseconds. */
  readonly maxRetryAfterMs: number;
  /** Idle limit per event, in milliseconds; 0 when disabled. */
  readonly idleTimeoutMs: number;
  /** Time source. */
  readonly clock: Clock;
  /** Random source in [0, 1). */
  readonly random: () => number;
  /** Retry observer, if any. */
  readonly onRetry: ((info: RetryInfo) => void) | undefined;
}

function nonNegative(field: string, value: unknown, fallback: number, infinite = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    Number.isNaN(value) ||
    value < 0 ||
    (!infinite && !Number.isFinite(value))
  ) {
    const kind = infinite ? 'a number >= 0' : 'a finite number >= 0';
    throw new ConfigError(field, `expected ${kind}, got ${String(value)}`);
  }
  // Each of these becomes a timer (or bounds one); Infinity, where allowed, means "no bound".
  if (value !== Number.POSITIVE_INFINITY) assertTimerMs(field, value);
  return value;
}

function optionalFunction<T>(field: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new ConfigError(field, 'expected a function');
  }
  return value;
}

function checkClock(value: unknown): Clock {
  if (value === undefined) return systemClock;
  const clock = value as Partial<Clock> | null;
  if (
    clock === null ||
    typeof clock !== 'object' ||
    typeof clock.now !== 'function' ||
    typeof clock.sleep !== 'function'
  ) {
    throw new ConfigError('clock', 'expected a Clock with now() and sleep(ms, signal)');
  }
  return value as Clock;
}

const RETRY_OPTION_KEYS: readonly string[] = [
  'maxAttempts',
  'baseDelayMs',
  'maxDelayMs',
  'maxRetryAfterMs',
  'idleTimeoutMs',
  'clock',
  'random',
  'onRetry',
];

/** Validates `options` and fills in the defaults; throws `ConfigError` naming the first bad field. */
export function resolveRetryOptions(options: WithRetryOptions | undefined): RetrySettings {
  if (options === undefined) options = {};
  // Also rejects a non-object (field `options`) and a misspelt key (`maxAttempt`), which would
  // otherwise leave the default in place without a word.
  assertOptions(options, RETRY_OPTION_KEYS, '');
  const maxAttempts = options.maxAttempts ?? 3;
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigError('maxAttempts', `expected an integer >= 1, got ${String(maxAttempts)}`);
  }
  return {
    maxAttempts,
    baseDelayMs: nonNegative('baseDelayMs', options.baseDelayMs, 500),
    maxDelayMs: nonNegative('maxDelayMs', options.maxDelayMs, 8_000),
    maxRetryAfterMs: nonNegative('maxRetryAfterMs', options.maxRetryAfterMs, 60_000, true),
    idleTimeoutMs: nonNegative('idleTimeoutMs', options.idleTimeoutMs, 60_000),
    clock: checkClock(options.clock),
    random: optionalFunction('random', options.random) ?? Math.random,
    onRetry: optionalFunction('onRetry', options.onRetry),
  };
}
