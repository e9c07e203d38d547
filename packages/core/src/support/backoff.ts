import { ConfigError } from '../errors.js';
import { assertTimerMs } from '../loop/limits.js';
import { type Clock, systemClock } from '../ports/clock.js';
import { shownValue } from './option-checks.js';

/** Settings of exponential backoff with full jitter. */
export interface BackoffOptions {
  /** First backoff ceiling in milliseconds (default 500). */
  readonly baseMs?: number;
  /** Largest backoff ceiling in milliseconds (default 8,000). */
  readonly capMs?: number;
  /** A server's retry-after above this is not waited for (default 60,000): give up instead. */
  readonly maxRetryAfterMs?: number;
  /** Random source in [0, 1); injectable for tests (default `Math.random`). */
  readonly random?: () => number;
}

/**
 * The wait before retry number `retry` (0 for the first retry): a uniform draw in
 * [0, min(cap, base × 2^retry)) — "full jitter" — raised to the server's `retryAfterMs` when
 * given, since retry-after is a minimum. Returns undefined when the server asks for more than
 * `maxRetryAfterMs`: waiting that long is the caller's decision, not a retry loop's. `baseMs`,
 * `capMs` and `maxRetryAfterMs` above `MAX_TIMEOUT_MS` are a `ConfigError` naming the field, so
 * the delay always fits a Node timer.
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = {},
  retryAfterMs?: number,
): number | undefined {
  if (!Number.isInteger(retry) || retry < 0)
    throw new ConfigError('retry', `expected an integer >= 0, got ${retry}`);
  const baseMs = nonNegative(options.baseMs, 500, 'baseMs');
  const capMs = nonNegative(options.capMs, 8_000, 'capMs');
  const maxRetryAfterMs = nonNegative(options.maxRetryAfterMs, 60_000, 'maxRetryAfterMs');
  const random = options.random ?? Math.random;
  if (typeof random !== 'function')
    throw new ConfigError('random', 'expected a function returning [0, 1)');
  if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) return undefined;
  const ceiling = Math.min(capMs, baseMs * 2 ** retry);
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs === undefined ? jittered : Math.max(Math.ceil(retryAfterMs), jittered);
}

function nonNegative(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(field, `expected a number >= 0, got ${shownValue(value)}`);
  }
  // Each bounds a wait: past a Node timer's limit the wait would end after 1 ms, not back off.
  assertTimerMs(field, value);
  return value;
}

/** Settings of `retry`. */
export interface RetryOptions<E = unknown> extends BackoffOptions {
  /** Total attempts including the first (default 3). */
  readonly maxAttempts?: number;
  /** Whether an error may be retried (default: never). */
  readonly shouldRetry?: (error: E, attempt: number) => boolean;
  /** The server's requested wait for an error, if any. */
  readonly retryAfterMs?: (error: E) => number | undefined;
  /** Never sleep past this time (ms since epoch), e.g. a run's deadline. */
  readonly deadline?: number;
  /** Stops waiting and retrying. */
  readonly signal?: AbortSignal;
  /** Injectable clock (default: the system clock). */
  readonly clock?: Clock;
  /** Told before each wait. */
  readonly onRetry?: (error: E, attempt: number, delayMs: number) => void;
}

/**
 * Calls `fn` until it succeeds, the error is not retryable, attempts run out, waiting would pass
 * the deadline or a server asks for a wait above `maxRetryAfterMs`; then throws the last error.
 * If `signal` aborts during a wait, it throws `CancelledError` at once.
 * `fn` receives the 1-based attempt number.
 */
export async function retry<T, E = unknown>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions<E> = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigError('maxAttempts', `expected an integer >= 1, got ${maxAttempts}`);
  }
  const clock = options.clock ?? systemClock;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const typed = error as E;
      if (
        attempt >= maxAttempts ||
        options.signal?.aborted ||
        !options.shouldRetry?.(typed, attempt)
      )
        throw error;
      const delay = backoffDelay(attempt - 1, options, options.retryAfterMs?.(typed));
      if (delay === undefined) throw error;
      if (options.deadline !== undefined && clock.now() + delay > options.deadline) throw error;
      options.onRetry?.(typed, attempt, delay);
      await clock.sleep(delay, options.signal);
    }
  }
}
