/** Largest accepted JSON-RPC line from a server, in bytes (16 MiB). */
export const DEFAULT_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Splits a byte stream into newline-delimited lines, refusing any line longer than `maxBytes`
 * without ever buffering more than that: an endless line fails fast instead of exhausting memory.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #overflowed = false;

  /** Creates a splitter with the given line cap in bytes. */
  constructor(maxBytes: number = DEFAULT_MAX_LINE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Feeds a chunk and returns the complete lines it finished (without `\n` or a trailing `\r`).
   * Returns `undefined` once a line exceeds the cap; the splitter then stays failed.
   */
  push(chunk: Buffer): string[] | undefined {
    if (this.#overflowed) return undefined;
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      if (this.#size + piece.length > this.#maxBytes) return this.#overflow();
      const line = Buffer.concat([...this.#chunks, piece]).toString('utf8');
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      this.#chunks = [];
      this.#size = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (this.#size + rest.length > this.#maxBytes) return this.#overflow();
    if (rest.length > 0) {
      this.#chunks.push(rest);
      this.#size += rest.length;
    }
    return lines;
  }

  #overflow(): undefined {
    this.#overflowed = true;
    this.#chunks = [];
    this.#size = 0;
    return undefined;
  }
}
