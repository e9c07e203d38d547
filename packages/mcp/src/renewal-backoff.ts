import type { Clock } from '@mh/core';

/** Delay before the first new attempt after a handshake failed, in ms; doubled per failure. */
const FIRST_RETRY_MS = 1000;
/** Longest delay between attempts, in ms: how late a recovered server may be noticed. */
const MAX_RETRY_MS = 10_000;
/**
 * Each delay is a random share between this and the whole of its doubling step, so the clients of
 * one server that went away do not all come back at the same moment; three quarters keeps the
 * bound on handshakes per second close to the step's.
 */
const JITTER_FLOOR = 0.75;

/**
 * When a new session may be attempted after renewals failed in a row: no sooner than 1 s after
 * the first failure, doubling per failure up to 10 s, each delay shortened by a random share of up
 * to a quarter (jitter). A renewal fails when its handshake fails or
 * when its session is ended before answering anything, so the count is kept until a session
 * answers (`succeed`), not merely opens. No timer is armed: callers ask.
 */
export class RenewalBackoff {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #random: () => number;
  /** Renewals failed in a row; 0 once a session answered. */
  #failures = 0;
  /** True from a failure until the next handshake succeeds. */
  #failed = false;
  /** Clock time before which no new handshake is attempted. */
  #retryAt = 0;
  #cause: unknown;
  #reason = '';

  /** `random` returns a number in [0, 1) (default `Math.random`); it draws each delay's jitter. */
  constructor(clock: Pick<Clock, 'now'>, random: () => number = Math.random) {
    this.#clock = clock;
    this.#random = random;
  }

  /** True while the last renewal failed and no handshake has succeeded since. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Why the last handshake failed; undefined when `failed` is false. */
  get cause(): unknown {
    return this.#cause;
  }

  /** What went wrong, in words, for the errors of calls made during the delay. */
  get reason(): string {
    return this.#reason;
  }

  /** Time left before a new handshake may be attempted, in ms; 0 or less when it may be now. */
  waitMs(): number {
    return this.failed ? this.#retryAt - this.#clock.now() : 0;
  }

  /** Records a failed renewal (`reason`, in words) and returns the delay before the next one, in ms. */
  fail(cause: unknown, reason: string): number {
    this.#failures++;
    this.#failed = true;
    this.#cause = cause;
    this.#reason = reason;
    const step = Math.min(FIRST_RETRY_MS * 2 ** (this.#failures - 1), MAX_RETRY_MS);
    const share = JITTER_FLOOR + (1 - JITTER_FLOOR) * Math.min(1, Math.max(0, this.#random()));
    const delay = Math.round(step * share);
    this.#retryAt = this.#clock.now() + delay;
    return delay;
  }

  /** Records a handshake that succeeded; the failures in a row still count. */
  opened(): void {
    this.#failed = false;
    this.#cause = undefined;
  }

  /** Records a session that answered: the next failure waits the first delay again. */
  succeed(): void {
    this.opened();
    this.#failures = 0;
  }
}
