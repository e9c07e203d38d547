import { CancelledError } from '../errors.js';
import type { Clock } from '../ports/clock.js';

interface Timer {
  readonly at: number;
  readonly resolve: () => void;
}

/** A Clock that moves only when told to: `advance(ms)` fires every sleep that falls due. */
export class ManualClock implements Clock {
  /** Every `sleep` requested, in milliseconds, in order. */
  readonly sleeps: number[] = [];
  #now: number;
  #timers: Timer[] = [];

  /** Starts the clock at `start` milliseconds. */
  constructor(start = 1_000_000) {
    this.#now = start;
  }

  /** The current time, milliseconds; moves only by `advance`. */
  now(): number {
    return this.#now;
  }

  /** Resolves once `advance` has moved time `ms` on; rejects with `CancelledError` on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new CancelledError('Sleep aborted', { cause: signal.reason }));
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
}
