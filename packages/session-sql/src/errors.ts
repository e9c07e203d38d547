import { ConfigError, SessionStoreUnavailableError } from '@mh/core';
import { brandCheck } from '@mh/core/internal';

/**
 * Why a file cannot be opened (or written) as a session store:
 *
 * - `unreadable`: it cannot be opened at all (a folder, no permission to read, no such folder);
 * - `not-a-database`, `truncated`, `corrupt`: it is not SQLite, or damaged SQLite;
 * - `foreign-schema`, `newer-schema`: another application's database, or a newer version's;
 * - `read-only`: this process may not write it — the file is read-only, or its folder is (SQLite
 *   creates its `-wal` and `-shm` files beside the database, and the file itself when absent), or
 *   SQLite refused a write (`SQLITE_READONLY`, e.g. another user's read-only `-shm` left behind).
 */
export const FILE_PROBLEMS = [
  'unreadable',
  'not-a-database',
  'truncated',
  'corrupt',
  'foreign-schema',
  'newer-schema',
  'read-only',
] as const;
/** Why a file cannot be opened (or written) as a session store; see `FILE_PROBLEMS`. */
export type FileProblem = (typeof FILE_PROBLEMS)[number];

/**
 * The file given to `openSqliteStore` is not a session store this code can use: not SQLite at
 * all, truncated, corrupt, another application's database, or written by a newer version. The
 * file is left exactly as it was. A `ConfigError` whose `field` is `path`.
 *
 * `problem: 'read-only'` is found when the store opens (the file or its folder is not writable by
 * this process) or, where opening cannot tell, at the first write SQLite refuses, which then
 * throws it instead of a raw `SQLITE_READONLY`. Nothing was written.
 */
export class SessionFileError extends ConfigError {
  static override readonly brandName: string = 'SessionFileError';
  /** True for a `SessionFileError` from any copy of `@mh/session-sql`. */
  static override readonly isInstance: (value: unknown) => value is SessionFileError =
    brandCheck('SessionFileError');
  /** The file, as given. */
  readonly path: string;
  /** What is wrong with it. */
  readonly problem: FileProblem;

  constructor(path: string, problem: FileProblem, detail: string, options?: { cause?: unknown }) {
    super('path', `${path}: ${detail}`, options);
    this.path = path;
    this.problem = problem;
  }
}

/** Why a PostgreSQL schema cannot hold the session store. */
export type SchemaProblem = Extract<FileProblem, 'foreign-schema' | 'newer-schema'>;

/**
 * The PostgreSQL schema given to `openPostgresStore` holds tables of the same names that this
 * store did not create, or was migrated by a newer version. Nothing is written to it. A
 * `ConfigError` whose `field` is `schema`.
 */
export class SessionSchemaError extends ConfigError {
  static override readonly brandName: string = 'SessionSchemaError';
  /** True for a `SessionSchemaError` from any copy of `@mh/session-sql`. */
  static override readonly isInstance: (value: unknown) => value is SessionSchemaError =
    brandCheck('SessionSchemaError');
  /** The schema, as given. */
  readonly schema: string;
  /** What is wrong with it. */
  readonly problem: SchemaProblem;

  constructor(schema: string, problem: SchemaProblem, detail: string) {
    super('schema', `schema ${JSON.stringify(schema)} ${detail}`);
    this.schema = schema;
    this.problem = problem;
  }
}

/**
 * Another connection held a lock the call needed for longer than the timeout (SQLite's busy
 * timeout, PostgreSQL's `lock_timeout`). Nothing was written; trying again later may succeed. A
 * `SessionStoreUnavailableError` whose `failure` is `busy`.
 */
export class SessionStoreBusyError extends SessionStoreUnavailableError {
  static override readonly brandName: string = 'SessionStoreBusyError';
  /** True for a `SessionStoreBusyError` from any copy of `@mh/session-sql`. */
  static override readonly isInstance: (value: unknown) => value is SessionStoreBusyError =
    brandCheck('SessionStoreBusyError');
  /** How long it waited for the lock, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super('busy', `The session store stayed locked for ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}
