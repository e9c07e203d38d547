/**
 * What the PostgreSQL backend does with an error a transaction raised:
 * - `rerun`: a concurrent transaction got in the way (serialization failure, deadlock, or, under
 *   READ COMMITTED, a unique or foreign key violation caused by a row another writer committed
 *   between our check and our write). Nothing was committed; running the whole transaction again
 *   sees the other writer's rows and behaves as if the two had run one after the other.
 * - `busy`: a lock stayed held past `lock_timeout`.
 * - `timeout`: a statement ran past `statement_timeout`.
 * - `connection`: the server is down, restarting, refused or dropped the connection.
 * - `other`: anything else (our own errors, bugs): passed on unchanged.
 */
export type PostgresErrorVerdict = 'rerun' | 'busy' | 'timeout' | 'connection' | 'other';

// SQLSTATE codes (PostgreSQL manual, appendix A).
const RERUN = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation
  '23503', // foreign_key_violation
]);
const CONNECTION = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown: another backend crashed, the server restarts
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
  '25P03', // idle_in_transaction_session_timeout: the server closed the session
]);
// Node's socket errors.
const SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// node-postgres reports a dead or closing connection with these messages and no code.
const DEAD_CONNECTION =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended/i;

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** Sorts an error raised by `pg` (or by Node's socket under it) into a `PostgresErrorVerdict`. */
export function classifyPostgresError(error: unknown): PostgresErrorVerdict {
  if (typeof error !== 'object' || error === null) return 'other';
  const code = codeOf(error);
  if (code !== undefined) {
    if (RERUN.has(code)) return 'rerun';
    if (code === '55P03') return 'busy'; // lock_not_available (lock_timeout)
    if (code === '57014') return 'timeout'; // query_canceled (statement_timeout)
    if (CONNECTION.has(code) || code.startsWith('08') || SOCKET.has(code)) return 'connection';
  }
  // Connecting to a host name with several addresses fails with one error per address.
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.some((e) => classifyPostgresError(e) === 'connection')) {
    return 'connection';
  }
  if (code === undefined && error instanceof Error && DEAD_CONNECTION.test(error.message)) {
    return 'connection';
  }
  return 'other';
}

/** SQLSTATE classes that mean the connection settings are wrong, not that the server is away. */
export function isConnectionConfigError(error: unknown): boolean {
  const code = codeOf(error);
  // 28: invalid authorization (bad user or password); 3D000: the database does not exist.
  return code !== undefined && (code.startsWith('28') || code === '3D000');
}
