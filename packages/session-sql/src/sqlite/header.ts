import { closeSync, openSync, readSync } from 'node:fs';
import { SessionFileError } from '../errors.js';

/** `PRAGMA application_id` of our files: "mhss" in ASCII, so `file(1)` and we can tell them. */
export const APPLICATION_ID = 0x6d687373;

const MAGIC = 'SQLite format 3\u0000';
const HEADER_BYTES = 100;

/** What the 100-byte database header says, for files that have one. */
export interface SqliteHeader {
  /** Page size in bytes. */
  readonly pageSize: number;
  /** Pages the header claims, or undefined when that field is stale (written by old software). */
  readonly pageCount: number | undefined;
}

/**
 * Reads and checks the header of an existing, non-empty file without SQLite touching it, so a
 * text file, garbage or a truncated copy is refused with a clear error before anything could
 * write to it. `walBytes` is the size of the `-wal` file beside it: pages it holds may belong
 * beyond the end of the main file, so the size check is skipped when it is not empty.
 */
export function checkSqliteHeader(path: string, fileBytes: number, walBytes: number): SqliteHeader {
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (read < HEADER_BYTES || header.toString('latin1', 0, 16) !== MAGIC) {
    throw new SessionFileError(
      path,
      'not-a-database',
      'is not a SQLite database (no SQLite header)',
    );
  }
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw new SessionFileError(path, 'corrupt', `has an invalid page size (${rawPageSize})`);
  }
  // The page count field is valid only while the change counter matches "version-valid-for".
  const pageCount =
    header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : undefined;
  const promised = (pageCount ?? 0) * pageSize;
  if (walBytes === 0 && fileBytes % pageSize !== 0) {
    throw new SessionFileError(
      path,
      'truncated',
      `is truncated: ${fileBytes} bytes is not a whole number of ${pageSize}-byte pages`,
    );
  }
  if (walBytes === 0 && fileBytes < promised) {
    throw new SessionFileError(
      path,
      'truncated',
      `is truncated: ${fileBytes} bytes where the header promises ${promised}`,
    );
  }
  return { pageSize, pageCount };
}
