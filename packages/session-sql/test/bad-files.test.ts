import { existsSync } from 'node:fs';
import { copyFile, mkdir, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileProblem, openSqliteStore, SessionFileError } from '../src/index.js';
import { fileHash } from './inspect-file.js';
import { promptTurn, tempDir } from './turns.js';

describe('openSqliteStore with a file that is not ours', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    folder = await tempDir();
  });
  afterEach(async () => {
    await folder.remove();
  });

  /** Opens `path`, expects `problem`, and checks the file is byte-for-byte unchanged. */
  async function expectRefused(path: string, problem: FileProblem): Promise<SessionFileError> {
    const before = await fileHash(path);
    const error = await openSqliteStore(path).catch((caught: unknown) => caught);
    expect(SessionFileError.isInstance(error), String(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'path', path, problem });
    expect((error as Error).message).toContain(path);
    expect(await fileHash(path)).toBe(before);
    return error as SessionFileError;
  }

  /** A store file with one committed turn, checkpointed so the main file is complete. */
  async function ourFile(name: string): Promise<string> {
    const path = join(folder.dir, name);
    const store = await openSqliteStore(path);
    await store.createSession({ id: 's' });
    for (let turn = 0; turn < 40; turn++) {
      await store.commit('s', promptTurn(String(turn), 'x'.repeat(400)), {
        expectedHead: (await store.load('s')).head,
      });
    }
    await store.close();
    return path;
  }

  it('refuses a text file and creates nothing beside it', async () => {
    const path = join(folder.dir, 'notes.txt');
    await writeFile(path, 'These are my notes, not a database.\n'.repeat(20));
    await expectRefused(path, 'not-a-database');
    expect(existsSync(`${path}-wal`) || existsSync(`${path}-shm`)).toBe(false);
  });

  it('refuses garbage bytes', async () => {
    const path = join(folder.dir, 'garbage.db');
    await writeFile(path, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 73) % 256)));
    await expectRefused(path, 'not-a-database');
  });

  it('refuses a valid header followed by garbage', async () => {
    const source = await ourFile('source.db');
    const path = join(folder.dir, 'mangled.db');
    const bytes = Buffer.from(await import('node:fs/promises').then((fs) => fs.readFile(source)));
    bytes.fill(0xa5, 100);
    await writeFile(path, bytes);
    await expectRefused(path, 'corrupt');
  });

  it("refuses another application's SQLite database, in rollback or WAL mode", async () => {
    for (const mode of ['delete', 'wal']) {
      const path = join(folder.dir, `other-${mode}.db`);
      const other = new Database(path);
      other.pragma(`journal_mode = ${mode}`);
      other.exec(
        "create table users(id integer primary key, name text); insert into users values (1, 'a')",
      );
      other.close();
      const error = await expectRefused(path, 'foreign-schema');
      expect(error.message).toContain('users');
    }
  });

  it('refuses a truncated copy of a store', async () => {
    const source = await ourFile('source.db');
    const { size } = await stat(source);
    const half = join(folder.dir, 'half.db');
    await copyFile(source, half);
    await truncate(half, Math.floor(size / 2 / 4096) * 4096);
    await expectRefused(half, 'truncated');
    const ragged = join(folder.dir, 'ragged.db');
    await copyFile(source, ragged);
    await truncate(ragged, size - 1000);
    await expectRefused(ragged, 'truncated');
    const stub = join(folder.dir, 'stub.db');
    await copyFile(source, stub);
    await truncate(stub, 60);
    await expectRefused(stub, 'not-a-database');
  });

  it('refuses a schema newer than the code knows instead of migrating it down', async () => {
    const path = await ourFile('newer.db');
    const database = new Database(path);
    database
      .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
      .run('9999_from_the_future', new Date().toISOString());
    database.close();
    const error = await expectRefused(path, 'newer-schema');
    expect(error.message).toContain('9999_from_the_future');
  });

  it('refuses a directory and a path whose folder does not exist', async () => {
    const directory = join(folder.dir, 'a-folder');
    await mkdir(directory);
    await expect(openSqliteStore(directory)).rejects.toMatchObject({ problem: 'unreadable' });
    const missing = join(folder.dir, 'no', 'such', 'store.db');
    await expect(openSqliteStore(missing)).rejects.toMatchObject({ problem: 'unreadable' });
  });

  it('initialises an empty file and reopens its own file', async () => {
    const path = join(folder.dir, 'empty.db');
    await writeFile(path, '');
    const store = await openSqliteStore(path);
    await store.createSession({ id: 's' });
    await store.close();
    const again = await openSqliteStore(path);
    expect((await again.listSessions()).map((session) => session.id)).toEqual(['s']);
    await again.close();
  });
});

describe('openSqliteStore options', () => {
  it('rejects a misspelt option with ConfigError naming it, creating no file', async () => {
    const folder = await tempDir();
    try {
      const path = join(folder.dir, 'typo.db');
      const options = { busyTimeout: 100 } as never;
      const error = await openSqliteStore(path, options).catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error) ? error.field : error).toBe('busyTimeout');
      expect(existsSync(path)).toBe(false);
    } finally {
      await folder.remove();
    }
  });
});
