import { CancelledError, ToolTimeoutError } from '@mh/core';

/** A request's own limit, kept across a renewal of its session. */
export interface RequestLimit {
  /** What a timeout names (the tool's label, or the method). */
  readonly label: string;
  /** The caller's whole limit, in ms: what a timeout reports. */
  readonly timeoutMs: number;
  /** `Date.now()` value at which the request times out. */
  readonly deadline: number;
}

/** The limit of a request starting now. */
export function requestLimit(label: string, timeoutMs: number): RequestLimit {
  return { label, timeoutMs, deadline: Date.now() + timeoutMs };
}

/** Time left of `limit`, in ms; 0 or less once it has passed. */
export function timeLeft(limit: RequestLimit): number {
  return limit.deadline - Date.now();
}

/**
 * Settles as `promise` does, or rejects with `ToolTimeoutError` (the whole limit) once `limit`
 * passes, or with `CancelledError` once `signal` aborts; leaves no timer or listener behind.
 */
export function waitWithin<T>(
  promise: Promise<T>,
  limit: RequestLimit,
  signal: AbortSignal | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new CancelledError('MCP call cancelled'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => reject(new ToolTimeoutError(limit.label, limit.timeoutMs)),
      Math.max(0, timeLeft(limit)),
    );
    void promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}
