export type { SessionStoreHooks, SqlSessionStore } from '../sql-session-store.js';
export {
  type SchemaProblem,
  SessionSchemaError,
  SessionStoreBusyError,
} from '../store-errors.js';
export { isPostgresUrl, redactConnectionString } from './connection-string.js';
export { openPostgresStore, type PostgresStoreOptions } from './open-postgres-store.js';
export type { PostgresLimits, PostgresSettings } from './postgres-backend.js';
export { PostgresSessionStore } from './postgres-session-store.js';
