import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSqliteHeader } from './header.js';

const folder = mkdtempSync(join(tmpdir(), 'mh-header-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A file of `pages` pages of 4096 bytes whose header claims `claimed` pages. */
function fakeDatabase(name: string, pages: number, claimed: number, extra = 0): string {
  const bytes = Buffer.alloc(pages * 4096 + extra);
  bytes.write('SQLite format 3\u0000', 0, 'latin1');
  bytes.writeUInt16BE(4096, 16);
  bytes.writeUInt32BE(7, 24);
  bytes.writeUInt32BE(claimed, 28);
  bytes.writeUInt32BE(7, 92);
  const path = join(folder, name);
  writeFileSync(path, bytes);
  return path;
}

describe('checkSqliteHeader', () => {
  it('accepts a whole database and reports its page size', () => {
    const path = fakeDatabase('whole.db', 3, 3);
    expect(checkSqliteHeader(path, 3 * 4096, 0)).toEqual({ pageSize: 4096, pageCount: 3 });
  });

  it('refuses a file without the SQLite header', () => {
    const path = join(folder, 'text.db');
    writeFileSync(path, 'x'.repeat(200));
    expect(() => checkSqliteHeader(path, 200, 0)).toThrow(/not a SQLite database/);
  });

  it('refuses a file shorter than its header promises, unless a WAL holds the rest', () => {
    const path = fakeDatabase('short.db', 2, 5);
    expect(() => checkSqliteHeader(path, 2 * 4096, 0)).toThrow(/truncated/);
    expect(checkSqliteHeader(path, 2 * 4096, 4096).pageCount).toBe(5);
  });

  it('refuses a file that is not a whole number of pages', () => {
    const path = fakeDatabase('ragged.db', 2, 2, 100);
    expect(() => checkSqliteHeader(path, 2 * 4096 + 100, 0)).toThrow(/whole number/);
  });
});
