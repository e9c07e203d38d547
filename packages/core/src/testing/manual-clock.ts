import { CancelledError } from '../errors.js';
import type { Clock } from '../ports/clock.js';

interface Timer {
  readonly at: number;
  readonly resolve: () => void;
}

/** Options of a `ManualClock`. */
export interface ManualClockOptions {
  /**
   * End every sleep at once, moving time on by its length, as if `advance(ms)` came right away
   * (default false). For code whose waits a test does not time: backoff between retries.
   */
  readonly instant?: boolean;
}

/**
 * A Clock that moves only when told to: `advance(ms)` fires every sleep that falls due,
 * `advanceToNext()` jumps to the earliest one; an `instant` clock ends each sleep at once.
 */
export class ManualClock implements Clock {
  /** Every `sleep` requested, in milliseconds, in order. */
  readonly sleeps: number[] = [];
  #now: number;
  #timers: Timer[] = [];
  readonly #instant: boolean;

  /** Starts the clock at `start` milliseconds. */
  constructor(start = 1_000_000, options: ManualClockOptions = {}) {
    this.#now = start;
    this.#instant = options.instant === true;
  }

  /** The current time, milliseconds; moves only by `advance`. */
  now(): number {
    return this.#now;
  }

  /**
   * Resolves once `advance` has moved time `ms` on (an instant clock moves it and resolves at
   * once); rejects with `CancelledError` on abort.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new CancelledError('Sleep aborted', { cause: signal.reason }));
        return;
      }
      if (this.#instant) {
        this.#now += ms;
        resolve();
        return;
      }
      const timer: Timer = {
        at: this.#now + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.#timers = this.#timers.filter((other) => other !== timer);
        reject(new CancelledError('Sleep aborted', { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  /** Sleeps still waiting. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Moves time forward and resolves the sleeps that fall due, earliest first. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#timers.filter((timer) => timer.at <= this.#now).sort((a, b) => a.at - b.at);
    this.#timers = this.#timers.filter((timer) => timer.at > this.#now);
    for (const timer of due) timer.resolve();
  }

  /**
   * Moves time to the earliest pending sleep (never back) and resolves every sleep due by then;
   * false, with time unmoved, when no sleep is pending.
   */
  advanceToNext(): boolean {
    if (this.#timers.length === 0) return false;
    const at = Math.min(...this.#timers.map((timer) => timer.at));
    this.advance(Math.max(0, at - this.#now));
    return true;
  }
}
