export {
  type SchemaProblem,
  SessionSchemaError,
  SessionStoreBusyError,
} from '../errors.js';
export type { SessionStoreHooks, SqlSessionStore } from '../sql-session-store.js';
export type { PostgresLimits, PostgresSettings } from './backend.js';
export { isPostgresUrl, redactConnectionString } from './connection-string.js';
export { openPostgresStore, type PostgresStoreOptions } from './open-store.js';
export { PostgresSessionStore } from './session-store.js';
