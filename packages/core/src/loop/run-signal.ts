import type { Clock } from '../ports/clock.js';

/** The marker `RunSignal.race` resolves with when the run was aborted first. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * One internal signal for everything a run has in flight, fired by the caller's signal or by the
 * run's hard timeout, whichever comes first; it remembers which. `race` lets the loop stop
 * waiting for a stream or a tool that ignores its signal.
 */
export class RunSignal {
  readonly #controller = new AbortController();
  /** Stops the timeout's sleep; absent without a timeout. */
  readonly #timer: AbortController | undefined;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => this.abort('cancelled');
  readonly #aborted: Promise<typeof ABORTED>;
  /** The races still waiting, told when the run aborts (see `race`). */
  readonly #waiting = new Set<() => void>();
  #reason: 'cancelled' | 'timeout' | undefined;

  constructor(caller: AbortSignal | undefined, timeoutMs: number | undefined, clock: Clock) {
    this.#caller = caller;
    this.#aborted = new Promise((resolve) => {
      this.#controller.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
    });
    // One reaction for every race, settled as each race's own reaction on #aborted would be.
    void this.#aborted.then(() => {
      for (const settle of this.#waiting) settle();
      this.#waiting.clear();
    });
    caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    if (caller?.aborted) this.abort('cancelled');
    if (timeoutMs !== undefined) {
      this.#timer = new AbortController();
      clock.sleep(timeoutMs, this.#timer.signal).then(
        () => this.abort('timeout'),
        () => {},
      );
    }
  }

  /** The signal handed to providers and tools. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the run was aborted. */
  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Why: the caller cancelled, or the hard timeout fired; undefined while running. */
  get reason(): 'cancelled' | 'timeout' | undefined {
    return this.#reason;
  }

  /** Aborts everything in flight; the first reason sticks. */
  abort(reason: 'cancelled' | 'timeout'): void {
    if (this.aborted) return;
    this.#reason = reason;
    this.#controller.abort(reason);
  }

  /**
   * Resolves with `promise`'s value, or with `ABORTED` as soon as the run is aborted. Not
   * `Promise.race` against the run-long abort promise: every such race left a reaction on it,
   * holding the race and its value until the run ended, so a long run grew with every event.
   */
  race<T>(promise: Promise<T>): Promise<T | typeof ABORTED> {
    if (this.aborted) return Promise.race([promise, this.#aborted]);
    return new Promise<T | typeof ABORTED>((resolve, reject) => {
      const settle = (): void => resolve(ABORTED);
      this.#waiting.add(settle);
      promise.then(
        (value) => {
          this.#waiting.delete(settle);
          resolve(value);
        },
        (error: unknown) => {
          this.#waiting.delete(settle);
          reject(error);
        },
      );
    });
  }

  /** Stops the timer and releases whatever is still in flight (a hung tool, a stream). */
  dispose(): void {
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
    // A reason of our own: without one, abort() builds a DOMException (about 20 µs per run).
    this.#timer?.abort('disposed');
    this.abort('cancelled');
  }
}
