import { statSync } from 'node:fs';
import { HarnessError } from '@mh/core';
import type Database from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  Migrator,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  sql,
  type TransactionSettings,
} from 'kysely';
import { SessionFileError, SessionStoreBusyError } from '../errors.js';
import { MIGRATION_NAMES, migrationProvider } from '../migrations.js';
import { loadOptionalPeer } from '../optional-peer.js';
import { keepShapes, type ShapeCache } from '../query-shapes.js';
import type { SchemaTypes, StoreBackend } from '../store-backend.js';
import type { StoreDatabase } from '../store-database.js';
import { APPLICATION_ID, checkSqliteHeader } from './header.js';

// Every SQLite-specific statement of the store is in this file: pragmas, BEGIN IMMEDIATE, the
// inspection of foreign files and the error codes. The store logic itself is plain kysely.

/** The durability settings in force on a connection, as SQLite reports them. */
export interface SqliteDurability {
  /** `wal` unless the file system cannot share memory (then SQLite falls back). */
  readonly journalMode: string;
  /** 2 is FULL: a commit is on disk before it returns, power loss included. */
  readonly synchronous: number;
  /** How long a writer waits for another's lock before giving up, in ms. */
  readonly busyTimeoutMs: number;
  /** Whether foreign keys are enforced. */
  readonly foreignKeys: boolean;
}

const isSqliteError = (error: unknown): error is Error & { code: string } =>
  error instanceof Error && typeof (error as { code?: unknown }).code === 'string';

const isBusy = (error: unknown): boolean =>
  isSqliteError(error) && error.code.startsWith('SQLITE_BUSY');

/** SQLite refused to write (`SQLITE_READONLY*`): as `SessionFileError` `read-only`, or undefined. */
function readOnlyError(path: string, error: unknown): SessionFileError | undefined {
  if (!isSqliteError(error) || !error.code.startsWith('SQLITE_READONLY')) return undefined;
  const detail = `is read-only: SQLite refused to write it (${error.message})`;
  return new SessionFileError(path, 'read-only', detail, { cause: error });
}

/** How many prepared statements a connection keeps (the store runs a few dozen distinct ones). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The connection as kysely's driver sees it, preparing each SQL text once: the driver prepares
 * a statement for every query it runs, and SQLite parsing and planning the same text again was
 * a good part of a commit's cost. Least recently used texts go first (`IN` lists vary in length).
 */
function cachingStatements(database: Database.Database): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare: (text: string) => {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      } else {
        cache.delete(text);
      }
      cache.set(text, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}

/** kysely's SQLite driver always sends a plain (deferred) `begin`; writers need the lock first. */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: Database.Database;

  constructor(database: Database.Database) {
    super({ database: cachingStatements(database) });
    this.#database = database;
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings?: TransactionSettings,
  ): Promise<void> {
    // A deferred transaction that reads and then writes can fail with SQLITE_BUSY without ever
    // waiting: the busy handler is skipped when waiting could deadlock.
    const begin = settings?.accessMode === 'read only' ? 'begin deferred' : 'begin immediate';
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolls back by itself on some errors; a second rollback would mask the first error.
    if (this.#database.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: Database.Database;

  constructor(database: Database.Database) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#database);
  }
}

/** SQLite's spelling of the schema's column kinds. */
export const sqliteSchemaTypes: SchemaTypes = {
  integer: 'integer',
  bytes: 'blob',
  // `integer primary key` is the rowid: appended rows fill pages densely.
  generatedKey: (column) => column.primaryKey(),
  clustered: (table) => table.modifyEnd(sql`without rowid`),
};

/** What the read-only look found: nothing, an empty database, or ours (up to date or not). */
type Verdict = 'absent' | 'empty' | 'outdated' | 'current';

const fileSize = (path: string): number | undefined => {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
};

/** better-sqlite3's `Database` class, loaded on first use. */
type DatabaseClass = typeof Database;

/** Looks at an existing file read-only and says whether we may open it for writing. */
function inspect(Database: DatabaseClass, path: string, busyTimeoutMs: number): Verdict {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return 'absent';
  if (!stats.isFile()) throw new SessionFileError(path, 'unreadable', 'is not a regular file');
  const bytes = stats.size;
  if (bytes === 0) return 'empty';
  checkSqliteHeader(path, bytes, fileSize(`${path}-wal`) ?? 0);
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
    const objects = database
      .prepare("select name from sqlite_schema where name not like 'sqlite_%' order by name")
      .pluck()
      .all() as string[];
    if (objects.length === 0) return 'empty';
    if (database.pragma('application_id', { simple: true }) !== APPLICATION_ID) {
      const shown = objects.slice(0, 5).join(', ');
      const detail = `holds another application's database (${shown}${objects.length > 5 ? ', …' : ''})`;
      throw new SessionFileError(path, 'foreign-schema', detail);
    }
    const applied = objects.includes('kysely_migration')
      ? (database.prepare('select name from kysely_migration').pluck().all() as string[])
      : [];
    const unknown = applied.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length > 0) {
      const detail = `was written by a newer version (schema ${unknown.join(', ')}); refusing to migrate it down`;
      throw new SessionFileError(path, 'newer-schema', detail);
    }
    return MIGRATION_NAMES.every((name) => applied.includes(name)) ? 'current' : 'outdated';
  } catch (error) {
    if (SessionFileError.isInstance(error)) throw error;
    if (isBusy(error)) throw new SessionStoreBusyError(busyTimeoutMs, { cause: error });
    // A read-only look may still need to write a -shm file: that is not corruption.
    const readOnly = readOnlyError(path, error);
    if (readOnly) throw readOnly;
    const code = isSqliteError(error) ? error.code : '';
    const problem = code === 'SQLITE_NOTADB' ? 'not-a-database' : code ? 'corrupt' : 'unreadable';
    const message = error instanceof Error ? error.message : String(error);
    throw new SessionFileError(path, problem, `cannot be read as a database (${message})`, {
      cause: error,
    });
  } finally {
    database?.close();
  }
}

/** How one write of a batch ended. */
export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A write's error made SQLite abandon the batch's transaction (`cause`). */
class BatchLostError extends Error {
  readonly lost: unknown;
  constructor(lost: unknown) {
    super('the batch transaction was abandoned');
    this.lost = lost;
  }
}

/**
 * The SQLite implementation of the store's backend: one better-sqlite3 connection. Its calls
 * block the thread they run on; `SqliteThread` runs it on a thread of its own.
 */
export class SqliteBackend implements StoreBackend {
  /** `BEGIN IMMEDIATE`: one write transaction at a time holds the whole file. */
  readonly serialWrites = true;
  /** The kysely instance over the connection. */
  readonly db: Kysely<StoreDatabase>;
  readonly #database: Database.Database;
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  /** The hot queries, compiled once for this connection (`query-shapes.ts`). */
  readonly #shapes: ShapeCache = new Map();

  constructor(
    database: Database.Database,
    path: string,
    busyTimeoutMs: number,
    onQuery?: (sql: string) => void,
  ) {
    this.#database = database;
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.db = new Kysely<StoreDatabase>({
      dialect: new ImmediateSqliteDialect(database),
      ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
    });
  }

  /** Runs `work` under `BEGIN IMMEDIATE`. */
  async write<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction().execute((trx) => work(keepShapes(trx, this.#shapes)));
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /**
   * Runs several writes in ONE `BEGIN IMMEDIATE` transaction, each in a savepoint of its own, and
   * commits them together: one fsync for all (group commit). A write that throws is rolled back
   * to its savepoint alone and gets its error; the others still commit. When the transaction
   * itself fails (the lock, the commit, or an error that made SQLite abandon the transaction)
   * every write of the batch gets that error: none of it landed. One write runs as `write` does.
   */
  async writeBatch(
    works: readonly ((trx: Kysely<StoreDatabase>) => Promise<unknown>)[],
  ): Promise<Settled[]> {
    if (works.length === 1 && works[0]) {
      try {
        return [{ ok: true, value: await this.write(works[0]) }];
      } catch (error) {
        return [{ ok: false, error }];
      }
    }
    const settled: Settled[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        keepShapes(trx, this.#shapes);
        for (const [index, work] of works.entries()) {
          const savepoint = `batch_${index}`;
          await sql.raw(`savepoint ${savepoint}`).execute(trx);
          try {
            const value = await work(trx);
            await sql.raw(`release ${savepoint}`).execute(trx);
            settled.push({ ok: true, value });
          } catch (error) {
            // SQLite abandons the whole transaction on some errors (a full disk, an I/O error):
            // then the writes before this one are gone too, and none may be reported as done.
            if (!this.#database.inTransaction) throw new BatchLostError(error);
            await sql.raw(`rollback to ${savepoint}`).execute(trx);
            await sql.raw(`release ${savepoint}`).execute(trx);
            settled.push({ ok: false, error: this.#translate(error) });
          }
        }
      });
    } catch (error) {
      const lost = this.#translate(error instanceof BatchLostError ? error.lost : error);
      return works.map(() => ({ ok: false, error: lost }));
    }
    return settled;
  }

  /** Runs `work` in a deferred (read) transaction: one snapshot of the WAL. */
  async read<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    try {
      return await this.db
        .transaction()
        .setAccessMode('read only')
        .execute((trx) => work(keepShapes(trx, this.#shapes)));
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /** Hands free pages back to the file system (the file uses `auto_vacuum = INCREMENTAL`). */
  async reclaimSpace(): Promise<void> {
    await this.write(async (trx) => {
      await sql`pragma incremental_vacuum`.execute(trx);
    });
  }

  /** The durability settings of this connection. */
  durability(): SqliteDurability {
    return {
      journalMode: String(this.#database.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.#database.pragma('synchronous', { simple: true })),
      busyTimeoutMs: Number(this.#database.pragma('busy_timeout', { simple: true })),
      foreignKeys: this.#database.pragma('foreign_keys', { simple: true }) === 1,
    };
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.db.destroy();
  }

  #translate(error: unknown): unknown {
    if (isBusy(error)) return new SessionStoreBusyError(this.#busyTimeoutMs, { cause: error });
    // Opening checks the file and folder modes; what it cannot see (a read-only -shm) shows here.
    return readOnlyError(this.#path, error) ?? error;
  }

  /** Brings the schema up to date under the write lock, so concurrent openers migrate once. */
  migrate(): Promise<void> {
    return this.db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const provider = migrationProvider(sqliteSchemaTypes);
        const { error } = await new Migrator({ db: connection, provider }).migrateToLatest();
        if (error) throw error;
        await sql.raw(`pragma application_id = ${APPLICATION_ID}`).execute(connection);
        await sql`commit`.execute(connection);
      } catch (error) {
        if (this.#database.inTransaction) await sql`rollback`.execute(connection);
        throw this.#translate(error);
      }
    });
  }
}

/**
 * Opens (creating when absent or empty) a session database at `path`. Files that are not ours are
 * refused with `SessionFileError` after a read-only look, before anything could write to them.
 */
export async function openSqliteBackend(
  path: string,
  busyTimeoutMs: number,
  onQuery?: (sql: string) => void,
): Promise<SqliteBackend> {
  const { default: Database } = await loadOptionalPeer(
    'better-sqlite3',
    'openSqliteStore',
    () => import('better-sqlite3'),
  );
  const verdict = inspect(Database, path, busyTimeoutMs);
  let database: Database.Database;
  try {
    database = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SessionFileError(path, 'unreadable', `cannot be opened (${message})`, {
      cause: error,
    });
  }
  try {
    // Only takes effect before the first table exists; freed pages can then be reclaimed.
    if (verdict === 'absent' || verdict === 'empty') database.pragma('auto_vacuum = INCREMENTAL');
    database.pragma('journal_mode = WAL');
    // better-sqlite3 builds with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1 (NORMAL): a power loss could
    // roll back acknowledged commits. FULL syncs the WAL on every commit. Per connection.
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    database.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    if (database.pragma('synchronous', { simple: true }) !== 2) {
      throw new HarnessError(`${path}: SQLite refused synchronous = FULL`);
    }
    const backend = new SqliteBackend(database, path, busyTimeoutMs, onQuery);
    try {
      if (verdict !== 'current') await backend.migrate();
    } catch (error) {
      await backend.close();
      throw error;
    }
    return backend;
  } catch (error) {
    if (database.open) database.close();
    if (isBusy(error)) throw new SessionStoreBusyError(busyTimeoutMs, { cause: error });
    throw readOnlyError(path, error) ?? error;
  }
}
