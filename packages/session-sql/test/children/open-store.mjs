// Opens the store a child process was given: a PostgreSQL URL, or the path of a SQLite file.
import { openSqliteStore } from '@mh/session-sql';
import { openPostgresStore } from '@mh/session-sql/postgres';

/**
 * Opens `spec` with `options` (onQuery, …). PostgreSQL pools stay small: many children share one
 * server. SQLite waits long for the write lock: the tests are about concurrent writers, not about
 * how loaded the machine is.
 */
export function openStore(spec, options = {}) {
  return spec.startsWith('postgres')
    ? openPostgresStore({ connectionString: spec, poolSize: 2, ...options })
    : openSqliteStore(spec, { busyTimeoutMs: 30_000, ...options });
}
