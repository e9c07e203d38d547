import { CancelledError } from '../errors.js';

/** Time, injectable so tests of backoff and timeouts need not wait. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with `CancelledError` as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({
  now: (): number => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new CancelledError('Sleep aborted', { cause: signal.reason }));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new CancelledError('Sleep aborted', { cause: signal?.reason }));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
});
