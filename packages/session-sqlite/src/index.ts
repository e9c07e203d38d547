export { openSqliteStore, type SqliteStoreOptions } from './open-sqlite-store.js';
export type { SessionStoreHooks, SqlSessionStore } from './sql-session-store.js';
export type { SqliteDurability } from './sqlite-backend.js';
export { APPLICATION_ID } from './sqlite-header.js';
export { SqliteSessionStore } from './sqlite-session-store.js';
export {
  FILE_PROBLEMS,
  type FileProblem,
  SessionFileError,
  SessionStoreBusyError,
} from './store-errors.js';
