/**
 * Attempts made by the model call that threw each error. A side table rather than a property so
 * the thrown error stays exactly the provider's own object (same identity, kind, status,
 * retryAfterMs), and core's `ProviderError` needs no new field.
 */
const attempts = new WeakMap<object, number>();

/** Notes that the call which ends with `error` made `count` attempts. */
export function recordAttempts(error: unknown, count: number): void {
  if (typeof error === 'object' && error !== null) attempts.set(error, count);
}

/**
 * How many attempts the model call that threw `error` made (1 when it was not retried);
 * undefined for an error that did not come out of a `withRetry` provider. When one error object
 * is thrown by several calls, the latest call's count wins.
 */
export function attemptsOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null ? attempts.get(error) : undefined;
}
