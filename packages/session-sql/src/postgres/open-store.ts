import { ConfigError } from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import { Kysely, PostgresDialect } from 'kysely';
import { loadOptionalPeer } from '../optional-peer.js';
import type { StoreDatabase } from '../store-database.js';
import { PostgresBackend, type PostgresLimits } from './backend.js';
import { redactConnectionString } from './connection-string.js';
import { isConnectionConfigError } from './errors.js';
import { PostgresSessionStore } from './session-store.js';

/** Options of `openPostgresStore`. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (query parameters as node-postgres reads them). */
  readonly connectionString: string;
  /**
   * The schema holding the store's tables, created on first open (default `mh`): tables named
   * `sessions` or `messages` of the application sharing the database are never touched.
   */
  readonly schema?: string;
  /** The most connections this store opens (default 10). Every worker process has its own pool. */
  readonly poolSize?: number;
  /** Cancels a statement running longer, in ms (default 10000); the call fails as `timeout`. */
  readonly statementTimeoutMs?: number;
  /**
   * How long a write waits for another's row lock before failing with `SessionStoreBusyError`,
   * in ms (default 5000).
   */
  readonly lockTimeoutMs?: number;
  /** How long connecting may take before the call fails as `unreachable`, in ms (default 5000). */
  readonly connectTimeoutMs?: number;
  /**
   * The server ends a session whose transaction stays idle longer (a writer that stalled holding
   * locks), in ms (default 30000).
   */
  readonly idleInTransactionTimeoutMs?: number;
  /** The clock for timestamps, ms since epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Mints ids for sessions created without one (default `ses_…`). */
  readonly newSessionId?: () => string;
  /** Called after every SQL statement the store runs, with its text (for debugging and tests). */
  readonly onQuery?: (sql: string) => void;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function milliseconds(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw new ConfigError(field, 'expected a positive number of milliseconds');
  }
  // Each becomes a timer in the driver or a PostgreSQL int setting: both stop at 2^31 - 1.
  assertTimerMs(field, Math.ceil(value));
  return Math.ceil(value);
}

const POSTGRES_OPTION_KEYS: readonly string[] = [
  'connectionString',
  'schema',
  'poolSize',
  'statementTimeoutMs',
  'lockTimeoutMs',
  'connectTimeoutMs',
  'idleInTransactionTimeoutMs',
  'now',
  'newSessionId',
  'onQuery',
];

/** The options, checked, with their defaults. */
function checkOptions(options: PostgresStoreOptions): {
  schema: string;
  poolSize: number;
  connectTimeoutMs: number;
  limits: PostgresLimits;
} {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('options', 'expected { connectionString }');
  }
  // A misspelt `schema` would otherwise put the tables in `mh` without a word.
  assertOptions(options, POSTGRES_OPTION_KEYS, '');
  const schema = options.schema ?? 'mh';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new ConfigError('schema', 'expected an identifier: letters, digits, _ (at most 63)');
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new ConfigError('poolSize', 'expected a positive integer');
  }
  for (const hook of ['now', 'newSessionId', 'onQuery'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new ConfigError(hook, 'expected a function');
    }
  }
  return {
    schema,
    poolSize,
    connectTimeoutMs: milliseconds(options.connectTimeoutMs, 'connectTimeoutMs', 5000),
    limits: {
      statementTimeoutMs: milliseconds(options.statementTimeoutMs, 'statementTimeoutMs', 10_000),
      lockTimeoutMs: milliseconds(options.lockTimeoutMs, 'lockTimeoutMs', 5000),
      idleInTransactionTimeoutMs: milliseconds(
        options.idleInTransactionTimeoutMs,
        'idleInTransactionTimeoutMs',
        30_000,
      ),
    },
  };
}

/** Parses int8 (bigint) as a number: our values (ms times, row keys) stay below 2^53. */
const parseInt8 = (text: string): number => Number(text);
const INT8_OID = 20;

/**
 * Opens the session store in a PostgreSQL database, creating its schema and tables on first use.
 * Many processes on many machines can share it: every guarantee of the SQLite store holds across
 * them (content-addressed checkpoints, branches, one winner per race and `SessionConflictError`
 * for the others, the tool-call journal, crash recovery). Needs the `pg` package.
 *
 * @example
 * ```ts
 * import { openPostgresStore } from '@mh/session-sql/postgres';
 *
 * const store = await openPostgresStore({ connectionString: 'postgres://mh@localhost/agents' });
 * const session = await store.createSession({ title: 'demo' });
 * const state = await store.load(session.id);
 * await store.close();
 * ```
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
): Promise<PostgresSessionStore> {
  const { schema, poolSize, connectTimeoutMs, limits } = checkOptions(options);
  const where = redactConnectionString(options.connectionString);
  const { default: pg } = await loadOptionalPeer('pg', 'openPostgresStore', () => import('pg'));
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    application_name: 'mh-session-store',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? parseInt8
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A connection the server drops (a restart, an admin's kill) emits 'error' on its client and,
  // when idle, on the pool; unheard, either would crash the process. The failure reaches the
  // caller through the statement that was using the connection, if any; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const onQuery = options.onQuery;
  const db = new Kysely<StoreDatabase>({
    dialect: new PostgresDialect({ pool }),
    ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
  });
  const backend = new PostgresBackend(db, schema, where, limits, poolSize);
  try {
    await backend.prepare();
  } catch (error) {
    await backend.close();
    if (isConnectionConfigError(error)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConfigError('connectionString', `${where}: ${reason}`, { cause: error });
    }
    throw error;
  }
  return new PostgresSessionStore(backend, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.newSessionId ? { newSessionId: options.newSessionId } : {}),
  });
}
