import { Worker } from 'node:worker_threads';

/** A matching line: 1-based line number and its text. */
export type LineMatch = readonly [line: number, text: string];

// Plain JavaScript, evaluated in the worker: no file to resolve from src/ or dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern, workerData.flags);
parentPort.on('message', ({ id, text, max }) => {
  const lines = text.split('\\n');
  const hits = [];
  for (let index = 0; index < lines.length && hits.length < max; index++) {
    if (regex.test(lines[index])) hits.push([index + 1, lines[index]]);
  }
  parentPort.postMessage({ id, hits });
});
`;

/**
 * Runs a model-supplied regular expression in a worker thread. A pathological pattern
 * (`(a+)+$` on a long line) can take exponential time, and a regex cannot be interrupted on the
 * thread running it; in a worker, `terminate()` stops it at once, so a tool timeout, the run's
 * hard timeout and Ctrl-C keep working.
 */
export class RegexWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (hits: LineMatch[]) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;
  #failure: Error | undefined;

  /** Starts a worker for `pattern` (already known to compile) with `flags`. */
  constructor(pattern: string, flags: string) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern, flags } });
    this.#worker.on('message', ({ id, hits }: { id: number; hits: LineMatch[] }) => {
      this.#pending.get(id)?.resolve(hits);
      this.#pending.delete(id);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new Error('The search was stopped.')));
  }

  /** The first `max` matching lines of `text`. */
  match(text: string, max: number): Promise<LineMatch[]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, text, max });
    });
  }

  /** Stops the worker, even mid-match; pending matches reject. */
  async terminate(): Promise<void> {
    this.#fail(new Error('The search was stopped.'));
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const { reject } of this.#pending.values()) reject(this.#failure);
    this.#pending.clear();
  }
}
