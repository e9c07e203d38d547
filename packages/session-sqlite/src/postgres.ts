/**
 * @deprecated Use `@mh/session-sql/postgres`. `@mh/session-sqlite/postgres` is its former name:
 * this entry re-exports it unchanged for one minor version, then goes away.
 */
export {
  isPostgresUrl,
  openPostgresStore,
  type PostgresLimits,
  PostgresSessionStore,
  type PostgresSettings,
  type PostgresStoreOptions,
  redactConnectionString,
  type SchemaProblem,
  SessionSchemaError,
  SessionStoreBusyError,
  type SessionStoreHooks,
  type SqlSessionStore,
} from '@mh/session-sql/postgres';
