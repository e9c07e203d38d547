import { type SessionStoreHooks, SqlSessionStore } from './sql-session-store.js';
import type { SqliteBackend, SqliteDurability } from './sqlite-backend.js';

/**
 * The SQLite `SessionStore`: content-addressed checkpoints with branches, optimistic commits and
 * a durable journal of the turn in flight, in one file. Create it with `openSqliteStore`. Every
 * write is one `BEGIN IMMEDIATE` transaction synced to disk (WAL, `synchronous = FULL`) before it
 * resolves.
 */
export class SqliteSessionStore extends SqlSessionStore {
  readonly #backend: SqliteBackend;

  /** Wraps an open backend; `openSqliteStore` is the way to get one. */
  constructor(backend: SqliteBackend, hooks: Partial<SessionStoreHooks> = {}) {
    super(backend, hooks);
    this.#backend = backend;
  }

  /** The durability settings in force on this store's connection (`synchronous` 2 = FULL). */
  async durability(): Promise<SqliteDurability> {
    this.assertOpen();
    return this.#backend.durability();
  }
}
