import { type Clock, ProviderError } from '@mh/core';

/** How waiting for a stream's next item ended. */
export type Pull<T> =
  | { readonly type: 'next'; readonly result: IteratorResult<T> }
  | { readonly type: 'error'; readonly error: unknown }
  | { readonly type: 'idle' }
  | { readonly type: 'aborted' };

/** Limits on one wait for the next item. */
export interface PullLimits {
  /** Gives up after this many milliseconds without an item; 0 waits for ever. */
  readonly idleTimeoutMs: number;
  /** Measures the idle time. */
  readonly clock: Clock;
  /** Gives up as soon as it aborts, even when the iterator ignores it. */
  readonly signal: AbortSignal;
}

/**
 * Waits for `iterator.next()`, but no longer than the idle limit and not past `signal`'s abort.
 * It never throws: an iterator failure comes back as `error`. When it returns `idle` or
 * `aborted`, the pending `next()` is left behind with its rejection handled; the caller aborts
 * and closes the stream.
 */
export async function pullWithin<T>(
  iterator: AsyncIterator<T>,
  limits: PullLimits,
): Promise<Pull<T>> {
  if (limits.signal.aborted) return { type: 'aborted' };
  // Stops the idle sleep once the race is decided, so no timer outlives its wait.
  const waiter = new AbortController();
  let onAbort = (): void => {};
  const contenders: Promise<Pull<T>>[] = [
    Promise.resolve()
      .then(() => iterator.next())
      .then(
        (result): Pull<T> => ({ type: 'next', result }),
        (error: unknown): Pull<T> => ({ type: 'error', error }),
      ),
    new Promise<Pull<T>>((resolve) => {
      onAbort = () => resolve({ type: 'aborted' });
      limits.signal.addEventListener('abort', onAbort, { once: true });
    }),
  ];
  if (limits.idleTimeoutMs > 0) {
    contenders.push(
      limits.clock.sleep(limits.idleTimeoutMs, waiter.signal).then(
        (): Pull<T> => ({ type: 'idle' }),
        // A sleep stopped by `waiter` rejects after the race is decided, so this value is unused
        // then; any other rejection is the clock's own failure.
        (error: unknown): Pull<T> => ({ type: 'error', error }),
      ),
    );
  }
  try {
    return await Promise.race(contenders);
  } finally {
    waiter.abort();
    limits.signal.removeEventListener('abort', onAbort);
  }
}

/** The error of an attempt aborted for silence: a retryable `timeout`. */
export function idleTimeoutError(provider: string, idleTimeoutMs: number): ProviderError {
  return new ProviderError(
    `No stream event within the idle timeout of ${idleTimeoutMs} ms; the attempt was aborted`,
    { kind: 'timeout', retryable: true, provider },
  );
}
