import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import { SessionFileError } from '../errors.js';
import { SqliteSessionStore } from './session-store.js';
import { SqliteThread } from './thread.js';

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits for another connection's lock before failing with
   * `SessionStoreBusyError`, in ms (default 5000). The wait happens on the store's own thread.
   */
  readonly busyTimeoutMs?: number;
  /** The clock for timestamps, ms since epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Mints ids for sessions created without one (default `ses_…`). */
  readonly newSessionId?: () => string;
  /**
   * Called after every SQL statement the store runs, with its text (for debugging and tests). The
   * store's thread waits for it to return before it runs the next statement, so it slows writes.
   */
  readonly onQuery?: (sql: string) => void;
  /**
   * How long the store's thread keeps watching for the next call after it answers one, in ms
   * (default 2, at most 100; 0 sleeps at once). An Agent's next write comes a fraction of a
   * millisecond after the last answer; a thread that went to sleep must first be woken, which
   * costs more than the wait. Watching spins a CPU core for at most this long per answer, and
   * only while calls come within this long of each other.
   */
  readonly lingerMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
/** Spinning past this would cost more CPU than a wake-up saves. */
const MAX_LINGER_MS = 100;
const DEFAULT_LINGER_MS = 2;

/** Whether this process may write `path`; true when it does not exist (others report that). */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS';
  }
}

/**
 * A read-only file would open and fail at the first commit with a raw `SQLITE_READONLY`; in a
 * read-only folder even the read-only look fails (it needs a `-shm` file), which read as corrupt.
 */
function refuseReadOnly(path: string): void {
  if (!writable(path)) {
    throw new SessionFileError(path, 'read-only', 'is read-only (this process may not write it)');
  }
  const folder = dirname(resolve(path));
  if (!writable(folder)) {
    throw new SessionFileError(
      path,
      'read-only',
      `cannot be written: its folder ${folder} is read-only (SQLite keeps its -wal and -shm files beside the database)`,
    );
  }
}

/**
 * Opens the session database at `path`, creating it (and its schema) when the file is absent or
 * empty. A file that is not ours — not SQLite, truncated, another application's schema, or a newer
 * schema version — is refused with `SessionFileError` and left untouched, and so is a file this
 * process may not write, or one in a folder it may not write (`problem: 'read-only'`).
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@mh/session-sql';
 *
 * const store = await openSqliteStore('mh.db');
 * const session = await store.createSession({ title: 'demo' });
 * const state = await store.load(session.id);
 * await store.close();
 * ```
 */
export async function openSqliteStore(
  path: string,
  options: SqliteStoreOptions = {},
): Promise<SqliteSessionStore> {
  if (typeof path !== 'string' || path.length === 0 || path === ':memory:') {
    throw new ConfigError('path', 'expected the path of a database file');
  }
  // Node would throw its own TypeError (ERR_INVALID_ARG_VALUE) at the first file call.
  if (path.includes('\0')) {
    throw new ConfigError(
      'path',
      `expected a file path without a NUL byte, got ${JSON.stringify(path)}`,
    );
  }
  // A misspelt key (`busyTimeout`) would otherwise keep the default without a word.
  assertOptions(options, ['busyTimeoutMs', 'now', 'newSessionId', 'onQuery', 'lingerMs'], '');
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isFinite(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new ConfigError('busyTimeoutMs', 'expected a non-negative number of milliseconds');
  }
  // SQLite keeps the busy timeout in a 32-bit int.
  assertTimerMs('busyTimeoutMs', busyTimeoutMs);
  const lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
  if (typeof lingerMs !== 'number' || !(lingerMs >= 0 && lingerMs <= MAX_LINGER_MS)) {
    throw new ConfigError(
      'lingerMs',
      `expected a number of milliseconds from 0 to ${MAX_LINGER_MS}, got ${String(lingerMs)}`,
    );
  }
  for (const hook of ['now', 'newSessionId', 'onQuery'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new ConfigError(hook, 'expected a function');
    }
  }
  refuseReadOnly(path);
  const thread = await SqliteThread.start(path, { busyTimeoutMs, lingerMs }, options.onQuery);
  return new SqliteSessionStore(thread, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.newSessionId ? { newSessionId: options.newSessionId } : {}),
  });
}
