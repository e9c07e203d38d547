const LF = 0x0a;
const CR = 0x0d;
/** Bytes of a line kept to recognise an `id:` field; longer ids are not resumption tokens we use. */
const HEAD_BYTES = 256;

/**
 * Watches a server-sent-events byte stream without decoding it: fails a line longer than the cap
 * (a guard against a server streaming an endless event) and remembers the last `id:` field (the
 * resumption token the MCP library reconnects with) and `retry:` field (its reconnection delay).
 */
export class SseLineScanner {
  /** The value of the last `id:` field seen, if any. */
  lastEventId: string | undefined;
  /** The last `retry:` field seen (the server's reconnection delay), in ms. */
  retryMs: number | undefined;
  readonly #maxLineBytes: number;
  #lineBytes = 0;
  #head: number[] = [];

  /** A scanner failing lines longer than `maxLineBytes`. */
  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Scans the next chunk; false once a line is longer than the cap. */
  push(chunk: Uint8Array): boolean {
    let start = 0;
    for (;;) {
      const end = nextBreak(chunk, start);
      const stop = end === -1 ? chunk.length : end;
      this.#lineBytes += stop - start;
      if (this.#lineBytes > this.#maxLineBytes) return false;
      for (let i = start; i < stop && this.#head.length < HEAD_BYTES; i++) {
        this.#head.push(chunk[i] as number);
      }
      if (end === -1) return true;
      this.#endLine();
      start = end + 1;
    }
  }

  #endLine(): void {
    const line = Buffer.from(this.#head).toString('utf8');
    if (this.#lineBytes <= HEAD_BYTES) {
      const field = line.match(/^(id|retry):( ?)(.*)$/s);
      if (field?.[1] === 'id') this.lastEventId = field[3];
      if (field?.[1] === 'retry' && /^\d+$/.test(field[3] ?? '')) this.retryMs = Number(field[3]);
    }
    this.#lineBytes = 0;
    this.#head = [];
  }
}

function nextBreak(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  const cr = chunk.indexOf(CR, from);
  if (lf === -1) return cr;
  if (cr === -1) return lf;
  return Math.min(lf, cr);
}
