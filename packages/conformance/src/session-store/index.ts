export { SessionStoreConformanceError } from './conformance-error.js';
export type {
  CrashOutcome,
  CrashWriter,
  SessionStoreConformanceOptions,
  SessionStoreConformanceReport,
  StoreWrite,
  StoreWriteMethod,
} from './options.js';
export { runSessionStoreConformance } from './run-session-store-conformance.js';
