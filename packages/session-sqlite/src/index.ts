/**
 * @deprecated Use `@mh/session-sql`. `@mh/session-sqlite` is its former name: this entry
 * re-exports `@mh/session-sql` unchanged for one minor version, then goes away.
 */
export {
  APPLICATION_ID,
  FILE_PROBLEMS,
  type FileProblem,
  openSqliteStore,
  SessionFileError,
  SessionStoreBusyError,
  type SessionStoreHooks,
  type SqliteDurability,
  SqliteSessionStore,
  type SqliteStoreOptions,
  type SqlSessionStore,
} from '@mh/session-sql';
