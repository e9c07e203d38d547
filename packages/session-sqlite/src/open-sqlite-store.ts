import { assertOptions, assertTimerMs, ConfigError } from '@mh/core';
import { openSqliteBackend } from './sqlite-backend.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /**
   * How long a write waits for another connection's lock before failing with
   * `SessionStoreBusyError`, in ms (default 5000). The wait blocks the event loop.
   */
  readonly busyTimeoutMs?: number;
  /** The clock for timestamps, ms since epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Mints ids for sessions created without one (default `ses_…`). */
  readonly newSessionId?: () => string;
  /** Called after every SQL statement the store runs, with its text (for debugging and tests). */
  readonly onQuery?: (sql: string) => void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the session database at `path`, creating it (and its schema) when the file is absent or
 * empty. A file that is not ours — not SQLite, truncated, another application's schema, or a newer
 * schema version — is refused with `SessionFileError` and left untouched.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@mh/session-sqlite';
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
  assertOptions(options, ['busyTimeoutMs', 'now', 'newSessionId', 'onQuery'], '');
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isFinite(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new ConfigError('busyTimeoutMs', 'expected a non-negative number of milliseconds');
  }
  // SQLite keeps the busy timeout in a 32-bit int.
  assertTimerMs('busyTimeoutMs', busyTimeoutMs);
  for (const hook of ['now', 'newSessionId', 'onQuery'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new ConfigError(hook, 'expected a function');
    }
  }
  const backend = await openSqliteBackend(path, busyTimeoutMs, options.onQuery);
  return new SqliteSessionStore(backend, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.newSessionId ? { newSessionId: options.newSessionId } : {}),
  });
}
