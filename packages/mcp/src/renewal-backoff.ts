import type { Clock } from '@mh/core';

/** Delay before the first new attempt after a handshake failed, in ms; doubled per failure. */
const FIRST_RETRY_MS = 1000;
/** Longest delay between attempts, in ms: how late a recovered server may be noticed. */
const MAX_RETRY_MS = 10_000;

/**
 * When a new session may be attempted after handshakes failed in a row: no sooner than 1 s after
 * the first failure, doubling per failure up to 10 s. No timer is armed: callers ask.
 */
export class RenewalBackoff {
  readonly #clock: Pick<Clock, 'now'>;
  /** Handshakes failed in a row; 0 once one succeeded. */
  #failures = 0;
  /** Clock time before which no new handshake is attempted. */
  #retryAt = 0;
  #cause: unknown;

  constructor(clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
  }

  /** True while the last handshake failed and none has succeeded since. */
  get failed(): boolean {
    return this.#failures > 0;
  }

  /** Why the last handshake failed; undefined when `failed` is false. */
  get cause(): unknown {
    return this.#cause;
  }

  /** Time left before a new handshake may be attempted, in ms; 0 or less when it may be now. */
  waitMs(): number {
    return this.failed ? this.#retryAt - this.#clock.now() : 0;
  }

  /** Records a failed handshake and returns the delay before the next attempt, in ms. */
  fail(cause: unknown): number {
    this.#failures++;
    this.#cause = cause;
    const delay = Math.min(FIRST_RETRY_MS * 2 ** (this.#failures - 1), MAX_RETRY_MS);
    this.#retryAt = this.#clock.now() + delay;
    return delay;
  }

  /** Records a handshake that succeeded: the next failure waits the first delay again. */
  succeed(): void {
    this.#failures = 0;
    this.#cause = undefined;
  }
}
