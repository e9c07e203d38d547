/** The errors of sessions: a moved head, and a store that cannot serve a call now. */
import { HarnessError } from './errors.js';
import { brandCheck } from './support/brand-check.js';

/**
 * Another writer moved a session's head since it was read (optimistic concurrency), or holds the
 * turn a journal write was meant for: a pending turn on the same head, or one that replaced or
 * cleared the caller's. Load again and decide; never retry the same write blindly.
 */
export class SessionConflictError extends HarnessError {
  static override readonly brandName: string = 'SessionConflictError';
  /** True for a `SessionConflictError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is SessionConflictError =
    brandCheck('SessionConflictError');
  /** The session that conflicted. */
  readonly sessionId: string;
  /** The head the writer expected. */
  readonly expectedHead: string | null;
  /** The head found in the store. */
  readonly actualHead: string | null;

  /**
   * @param reason What conflicted when the head itself did not move (another writer's pending
   *   turn on the same head, a journaled call that another writer replaced); the message says it.
   */
  constructor(
    sessionId: string,
    expectedHead: string | null,
    actualHead: string | null,
    reason?: string,
  ) {
    super(
      reason === undefined
        ? `Session ${sessionId} moved: expected head ${expectedHead ?? '(none)'}, found ${actualHead ?? '(none)'}`
        : `Session ${sessionId}: ${reason}`,
    );
    this.sessionId = sessionId;
    this.expectedHead = expectedHead;
    this.actualHead = actualHead;
  }
}

/** Why a session store's database could not serve a call. */
export const SESSION_STORE_FAILURES = [
  'busy',
  'timeout',
  'unreachable',
  'outcome-unknown',
] as const;
/**
 * `busy`: a lock stayed held past the lock timeout; `timeout`: a statement ran past its limit;
 * `unreachable`: the server is down, restarting or the connection broke before anything was
 * committed; `outcome-unknown`: the connection broke while the commit was in flight.
 */
export type SessionStoreFailure = (typeof SESSION_STORE_FAILURES)[number];

/**
 * A session store's database could not serve a call now. Always retryable. For every failure but
 * `outcome-unknown` nothing was written; after `outcome-unknown` the write may have landed, and
 * retrying the same call is safe (a commit retried on the same head returns the landed checkpoint).
 */
export class SessionStoreUnavailableError extends HarnessError {
  static override readonly brandName: string = 'SessionStoreUnavailableError';
  /** True for a `SessionStoreUnavailableError` (or subclass) from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is SessionStoreUnavailableError =
    brandCheck('SessionStoreUnavailableError');
  /** What went wrong. */
  readonly failure: SessionStoreFailure;
  /** Always true: the call may be tried again. */
  readonly retryable: boolean = true;

  constructor(failure: SessionStoreFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}
