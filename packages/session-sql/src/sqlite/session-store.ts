import { type SessionStoreHooks, SqlSessionStore } from '../sql-session-store.js';
import type { SqliteDurability } from './backend.js';
import type { SqliteThread } from './thread.js';

/**
 * The SQLite `SessionStore`: content-addressed checkpoints with branches, optimistic commits and
 * a durable journal of the turn in flight, in one file. Create it with `openSqliteStore`. Every
 * write is committed to disk (WAL, `synchronous = FULL`) before it resolves. The connection lives
 * on a thread of its own, so a commit's fsync or a wait for another process's lock never blocks
 * this thread; writes made at the same time (by many agents sharing the store) are committed
 * together, one transaction and one fsync for the lot, each still all-or-nothing on its own.
 */
export class SqliteSessionStore extends SqlSessionStore {
  readonly #thread: SqliteThread;

  /** Wraps an open store thread; `openSqliteStore` is the way to get one. */
  constructor(thread: SqliteThread, hooks: Partial<SessionStoreHooks> = {}) {
    super(thread, hooks);
    this.#thread = thread;
  }

  /** The durability settings in force on this store's connection (`synchronous` 2 = FULL). */
  async durability(): Promise<SqliteDurability> {
    this.assertOpen();
    return await this.#thread.durability();
  }
}
