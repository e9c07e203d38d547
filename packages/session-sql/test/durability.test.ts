import { join } from 'node:path';
import { SessionStoreUnavailableError } from '@mh/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, SessionStoreBusyError } from '../src/index.js';
import { rowCounts } from './inspect-file.js';
import { promptTurn, tempDir } from './turns.js';

describe('SqliteSessionStore durability', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let path: string;
  beforeEach(async () => {
    folder = await tempDir();
    path = join(folder.dir, 'store.db');
  });
  afterEach(async () => {
    await folder.remove();
  });

  it('runs WAL with synchronous = FULL, foreign keys and a busy timeout on every open', async () => {
    for (let open = 0; open < 2; open++) {
      const store = await openSqliteStore(path);
      expect(await store.durability()).toEqual({
        journalMode: 'wal',
        synchronous: 2,
        busyTimeoutMs: 5000,
        foreignKeys: true,
      });
      await store.close();
    }
  });

  it('takes the write lock up front: every write transaction is BEGIN IMMEDIATE', async () => {
    const statements: string[] = [];
    const store = await openSqliteStore(path, { onQuery: (sql) => statements.push(sql) });
    await store.createSession({ id: 's' });
    statements.length = 0;
    await store.commit('s', promptTurn('1'), { expectedHead: null });
    await store.load('s');
    await store.close();
    expect(statements[0]).toBe('begin immediate');
    expect(statements.filter((sql) => sql.startsWith('begin'))).toEqual([
      'begin immediate',
      'begin deferred',
    ]);
    expect(statements.filter((sql) => sql === 'commit')).toHaveLength(2);
  });

  it('uses incremental auto-vacuum so deleted sessions give their pages back', async () => {
    const store = await openSqliteStore(path);
    await store.close();
    const database = new Database(path, { readonly: true });
    expect(database.pragma('auto_vacuum', { simple: true })).toBe(2);
    database.close();
  });

  it('fails with a retryable SessionStoreBusyError when another writer holds the lock', async () => {
    const store = await openSqliteStore(path, { busyTimeoutMs: 100 });
    await store.createSession({ id: 's' });
    const other = new Database(path);
    other.exec('begin immediate');
    const error = await store.commit('s', promptTurn('1'), { expectedHead: null }).catch((e) => e);
    expect(SessionStoreBusyError.isInstance(error)).toBe(true);
    expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ failure: 'busy', retryable: true, timeoutMs: 100 });
    other.exec('rollback');
    other.close();
    expect(rowCounts(path)).toMatchObject({ checkpoints: 0, messages: 0 });
    await store.commit('s', promptTurn('1'), { expectedHead: null });
    expect(rowCounts(path)).toMatchObject({ checkpoints: 1 });
    await store.close();
  });
});
