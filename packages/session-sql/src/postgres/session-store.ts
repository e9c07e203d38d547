import { type SessionStoreHooks, SqlSessionStore } from '../sql-session-store.js';
import { backendRunner } from '../store-ops.js';
import type { PostgresBackend, PostgresSettings } from './backend.js';

/**
 * The PostgreSQL `SessionStore`: the same content-addressed checkpoints, branches, optimistic
 * commits and turn journal as `SqliteSessionStore`, shared by many worker processes on many
 * machines through a connection pool. Create it with `openPostgresStore`. Every write is one
 * READ COMMITTED transaction with `synchronous_commit = on`; a write that lost to a concurrent
 * transaction is run again, and a head that moved is a `SessionConflictError`.
 */
export class PostgresSessionStore extends SqlSessionStore {
  readonly #backend: PostgresBackend;

  /** Wraps an open backend; `openPostgresStore` is the way to get one. */
  constructor(backend: PostgresBackend, hooks: Partial<SessionStoreHooks> = {}) {
    super(backendRunner(backend), hooks);
    this.#backend = backend;
  }

  /** The settings the store's write transactions run under, as the server reports them. */
  async settings(): Promise<PostgresSettings> {
    this.assertOpen();
    return await this.#backend.settings();
  }
}
