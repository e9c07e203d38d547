import { closeSync, constants, ftruncateSync, openSync, writeSync } from 'node:fs';
import { HarnessError } from '@mh/core';
import type { Scrubber } from '../recording/scrub.js';
import { CassetteFileError } from './errors.js';
import type { ParsedCassette } from './reader.js';

/**
 * Appends whole lines to a cassette. Every line goes out in one `write` on a descriptor opened
 * with `O_APPEND`, synchronously, when its exchange ends: lines of concurrent runs interleave but
 * never mix, and a line is on its way to disk before the run goes on. A failed write is kept and
 * thrown again by `close()`, since a stream abandoned mid-way cannot report it.
 */
export class CassetteWriter {
  readonly #path: string;
  readonly #scrub: Scrubber;
  #fd: number | undefined;
  #error: Error | undefined;

  private constructor(path: string, fd: number, scrub: Scrubber) {
    this.#path = path;
    this.#fd = fd;
    this.#scrub = scrub;
  }

  /** Creates a cassette file (or empties one, with `overwrite`) and writes its header line. */
  static create(
    path: string,
    headerLine: string,
    options: { overwrite: boolean; scrub: Scrubber },
  ): CassetteWriter {
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_APPEND |
      (options.overwrite ? constants.O_TRUNC : constants.O_EXCL);
    let fd: number;
    try {
      fd = openSync(path, flags, 0o644);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new CassetteFileError(
          path,
          'exists',
          'a cassette already exists here; pass overwrite: true to record it again',
        );
      throw new CassetteFileError(path, 'unreadable', `cannot create the file (${code})`, {
        cause: error,
      });
    }
    const writer = new CassetteWriter(path, fd, options.scrub);
    writer.write(headerLine);
    return writer;
  }

  /**
   * Opens a parsed cassette for appending. A truncated last line is cut off first, and a whole
   * last line missing its newline gets one, so the next line starts on a line of its own.
   */
  static append(path: string, parsed: ParsedCassette, scrub: Scrubber): CassetteWriter {
    let fd: number;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_APPEND);
      if (parsed.tail === 'truncated') ftruncateSync(fd, parsed.completeBytes);
    } catch (error) {
      throw new CassetteFileError(
        path,
        'unreadable',
        `cannot open the file for appending (${(error as NodeJS.ErrnoException).code})`,
        { cause: error },
      );
    }
    const writer = new CassetteWriter(path, fd, scrub);
    if (parsed.tail === 'whole') writer.#writeRaw('\n');
    return writer;
  }

  /** The first write failure, if any. */
  get error(): Error | undefined {
    return this.#error;
  }

  /** Writes one line (a JSON object without its newline), scrubbed of secrets. */
  write(jsonLine: string): void {
    this.#writeRaw(`${this.#scrub.json(jsonLine)}\n`);
  }

  #writeRaw(text: string): void {
    if (this.#fd === undefined)
      throw new HarnessError(`The cassette ${this.#path} is closed; nothing more can be recorded`);
    const buffer = Buffer.from(text, 'utf8');
    try {
      let offset = 0;
      // A regular file takes the whole buffer at once; the loop only guards against a short write.
      while (offset < buffer.length)
        offset += writeSync(this.#fd, buffer, offset, buffer.length - offset);
    } catch (error) {
      const failure = new HarnessError(`Cannot write to the cassette ${this.#path}`, {
        cause: error,
      });
      this.#error ??= failure;
      throw failure;
    }
  }

  /** Closes the file; throws the first write failure, if there was one. */
  close(): void {
    if (this.#fd !== undefined) {
      closeSync(this.#fd);
      this.#fd = undefined;
    }
    if (this.#error) throw this.#error;
  }
}
