export {
  FILE_PROBLEMS,
  type FileProblem,
  SessionFileError,
  SessionStoreBusyError,
} from './errors.js';
export type { SessionStoreHooks, SqlSessionStore } from './sql-session-store.js';
export type { SqliteDurability } from './sqlite/backend.js';
export { APPLICATION_ID } from './sqlite/header.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite/open-store.js';
export { SqliteSessionStore } from './sqlite/session-store.js';
