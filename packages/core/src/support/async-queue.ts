/**
 * A single-consumer queue joining producers that run concurrently (parallel tool calls) to an
 * async-generator consumer. Its size is bounded by what the producers push: the loop pushes at
 * most two items per tool call of one turn.
 */
export class AsyncQueue<T> {
  readonly #items: T[] = [];
  #waiter: ((value: IteratorResult<T>) => void) | undefined;
  #failWaiter: ((error: unknown) => void) | undefined;
  #closed = false;
  #error: { value: unknown } | undefined;

  /** Adds an item; ignored once the queue is closed. */
  push(item: T): void {
    if (this.#closed) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#clearWaiter();
      waiter({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  /** Ends the queue after the items already pushed. */
  close(): void {
    this.#closed = true;
    if (this.#waiter && this.#items.length === 0) {
      const waiter = this.#waiter;
      this.#clearWaiter();
      waiter({ value: undefined, done: true });
    }
  }

  /** Ends the queue with an error, delivered after the items already pushed. */
  fail(error: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#error = { value: error };
    if (this.#failWaiter && this.#items.length === 0) {
      const fail = this.#failWaiter;
      this.#clearWaiter();
      fail(error);
    }
  }

  /** The next item, or done once closed and drained. */
  next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0)
      return Promise.resolve({ value: this.#items.shift() as T, done: false });
    if (this.#error) return Promise.reject(this.#error.value);
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiter = resolve;
      this.#failWaiter = reject;
    });
  }

  #clearWaiter(): void {
    this.#waiter = undefined;
    this.#failWaiter = undefined;
  }
}
