/** Default size of the stderr tail kept per server, in bytes. */
export const DEFAULT_STDERR_TAIL_BYTES = 8192;

/**
 * Keeps the last `maxBytes` bytes written to a stream, so a chatty server's stderr is always drained
 * (a full pipe would block a server that writes synchronously) while memory stays bounded.
 */
export class StderrTail {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;

  /** Creates an empty tail keeping at most `maxBytes` bytes. */
  constructor(maxBytes: number = DEFAULT_STDERR_TAIL_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Appends a chunk, dropping the oldest bytes beyond the cap. */
  push(chunk: Buffer): void {
    const kept = chunk.length > this.#maxBytes ? chunk.subarray(-this.#maxBytes) : chunk;
    this.#chunks.push(kept);
    this.#size += kept.length;
    while (this.#size > this.#maxBytes && this.#chunks.length > 0) {
      const first = this.#chunks[0] as Buffer;
      const excess = this.#size - this.#maxBytes;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  /** The kept bytes as text (a cut multi-byte character shows as U+FFFD). */
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
