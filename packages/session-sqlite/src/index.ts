export { openSqliteStore, type SqliteStoreOptions } from './open-sqlite-store.js';
export { APPLICATION_ID, type SqliteDurability } from './sqlite-backend.js';
export { type SessionStoreHooks, SqliteSessionStore } from './sqlite-session-store.js';
export {
  FILE_PROBLEMS,
  type FileProblem,
  SessionFileError,
  SessionStoreBusyError,
} from './store-errors.js';
