import { type BackoffOptions, ConfigError } from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import { isTransientError } from './transient-error.js';

/** Retry settings for idempotent tools; other tools are never retried. */
export interface ToolRetryOptions extends BackoffOptions {
  /** Attempts per call, the first included (integer >= 1, default 3). */
  readonly maxAttempts?: number;
  /** Whether a thrown error may go away on a retry (default `isTransientError`). */
  readonly isTransient?: (error: unknown) => boolean;
}

/** `ToolRetryOptions` checked, with the executor's defaults filled in. */
export interface ToolRetrySettings {
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;
  /** Whether a thrown error may go away on a retry. */
  readonly isTransient: (error: unknown) => boolean;
  /** Backoff between attempts. */
  readonly backoff: BackoffOptions;
}

const RETRY_OPTION_KEYS: readonly string[] = [
  'maxAttempts',
  'isTransient',
  'baseMs',
  'capMs',
  'maxRetryAfterMs',
  'random',
];

/**
 * Checks `ToolExecutorOptions.retry`; throws `ConfigError` naming the field (`retry.capMs`). A
 * misspelt key (`baseDelayMs`, `withRetry`'s name) would otherwise keep the default without a
 * word, and a delay past `MAX_TIMEOUT_MS` would make Node fire the backoff timer after 1 ms.
 */
export function resolveToolRetry(retry: ToolRetryOptions | undefined): ToolRetrySettings {
  if (retry === undefined) return { maxAttempts: 3, isTransient: isTransientError, backoff: {} };
  assertOptions(retry, RETRY_OPTION_KEYS, 'retry');
  const { maxAttempts = 3, isTransient = isTransientError, ...backoff } = retry;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigError('retry.maxAttempts', `expected an integer >= 1, got ${maxAttempts}`);
  }
  if (typeof isTransient !== 'function') {
    throw new ConfigError('retry.isTransient', 'expected a function');
  }
  for (const key of ['baseMs', 'capMs', 'maxRetryAfterMs'] as const) {
    const value = backoff[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(`retry.${key}`, `expected a number >= 0, got ${String(value)}`);
    }
    assertTimerMs(`retry.${key}`, value);
  }
  // Checked here, not at the first retry, where the failure would become the tool's error.
  if (backoff.random !== undefined && typeof backoff.random !== 'function') {
    throw new ConfigError('retry.random', 'expected a function returning [0, 1)');
  }
  return { maxAttempts, isTransient, backoff };
}
