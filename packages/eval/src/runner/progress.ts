/** Where a progress line is written: a terminal stream, or a test's collector. */
export interface ProgressSink {
  /** Writes text (no newline is added). */
  write(text: string): unknown;
}

/**
 * A one-line progress display, redrawn in place (`\r`, clear to end of line) as sessions finish,
 * and ended with a newline. Meant for a terminal only: the runner creates one only when stderr is
 * a TTY (or when given a sink), so logs and CI output get no control characters.
 */
export class ProgressLine {
  readonly #sink: ProgressSink;
  readonly #total: number;
  readonly #started = performance.now();
  #done = 0;
  #passed = 0;

  constructor(sink: ProgressSink, total: number) {
    this.#sink = sink;
    this.#total = total;
  }

  /** Counts one finished session and redraws. */
  tick(passed: boolean): void {
    this.#done++;
    if (passed) this.#passed++;
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    const failed = this.#done - this.#passed;
    this.#sink.write(
      `\r\u001b[2Keval ${this.#done}/${this.#total} · ${this.#passed} passed · ${failed} failed · ${seconds}s`,
    );
  }

  /** Ends the line. */
  end(): void {
    if (this.#done > 0) this.#sink.write('\n');
  }
}
