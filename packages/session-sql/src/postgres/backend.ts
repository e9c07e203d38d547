import { setTimeout as sleep } from 'node:timers/promises';
import { SessionStoreUnavailableError } from '@mh/core';
import { type Kysely, sql } from 'kysely';
import { SessionStoreBusyError } from '../errors.js';
import { keepShapes, type ShapeCache } from '../query-shapes.js';
import type { StoreBackend } from '../store-backend.js';
import type { StoreDatabase } from '../store-database.js';
import { classifyPostgresError, type PostgresErrorVerdict } from './errors.js';
import { inspectSchema, migrateSchema } from './schema.js';

// Every PostgreSQL-specific statement of the store's transactions is in this file: how a
// transaction begins (isolation, timeouts, durability), when it is run again, and how the
// server's errors become the store's typed errors. The store logic itself is plain kysely.

/** The limits a store's transactions run under, in ms. */
export interface PostgresLimits {
  /** `statement_timeout`: a statement running longer is cancelled (`timeout`). */
  readonly statementTimeoutMs: number;
  /** `lock_timeout`: waiting longer for a row lock fails with `SessionStoreBusyError`. */
  readonly lockTimeoutMs: number;
  /** `idle_in_transaction_session_timeout`: a writer that stalls mid-transaction is cut off. */
  readonly idleInTransactionTimeoutMs: number;
}

/** The settings in force inside the store's write transactions, as the server reports them. */
export interface PostgresSettings {
  /** The schema holding the store's tables. */
  readonly schema: string;
  /** `transaction_isolation` of a write transaction: `read committed`. */
  readonly isolation: string;
  /** `synchronous_commit`: `on`, so a commit is flushed to the WAL on disk before it returns. */
  readonly synchronousCommit: string;
  /** `statement_timeout` in ms. */
  readonly statementTimeoutMs: number;
  /** `lock_timeout` in ms. */
  readonly lockTimeoutMs: number;
  /** `idle_in_transaction_session_timeout` in ms. */
  readonly idleInTransactionTimeoutMs: number;
  /** The most connections this store's pool opens. */
  readonly poolSize: number;
  /** `server_version`, e.g. `15.18`. */
  readonly serverVersion: string;
}

/** How often a transaction that lost to a concurrent one (`rerun`) is run again at most. */
const MAX_RUNS = 12;
/** The pause before the one retry of a transaction whose connection broke before its commit. */
const RECONNECT_PAUSE_MS = 50;

type Phase = 'work' | 'commit';

const interval = (ms: number): string => `'${Math.trunc(ms)}ms'`;

/** The PostgreSQL implementation of the store's backend: a connection pool behind kysely. */
export class PostgresBackend implements StoreBackend {
  /** Writers interleave under READ COMMITTED: a write locks the rows it decides on. */
  readonly serialWrites = false;
  /** The hot queries, compiled once for this schema (`query-shapes.ts`). */
  readonly #shapes: ShapeCache = new Map();
  /** The kysely instance over the pool (tables unqualified: transactions add the schema). */
  readonly db: Kysely<StoreDatabase>;
  readonly #schema: string;
  readonly #where: string;
  readonly #limits: PostgresLimits;
  readonly #poolSize: number;
  readonly #beginWrite: string;
  readonly #beginRead: string;

  /**
   * @param db kysely over a `pg` pool.
   * @param schema The schema of the store's tables.
   * @param where The server, for messages (no password).
   */
  constructor(
    db: Kysely<StoreDatabase>,
    schema: string,
    where: string,
    limits: PostgresLimits,
    poolSize: number,
  ) {
    this.db = db;
    this.#schema = schema;
    this.#where = where;
    this.#limits = limits;
    this.#poolSize = poolSize;
    // Set per transaction (one round trip with BEGIN, simple-query protocol) rather than per
    // connection: the settings hold whatever the server's, role's or pooler's defaults are.
    const local = [
      `set local statement_timeout = ${interval(limits.statementTimeoutMs)}`,
      `set local lock_timeout = ${interval(limits.lockTimeoutMs)}`,
      `set local idle_in_transaction_session_timeout = ${interval(limits.idleInTransactionTimeoutMs)}`,
    ];
    // READ COMMITTED: the head's compare-and-set update waits for a concurrent writer's row
    // lock, then re-checks its WHERE on the committed row, so the loser updates 0 rows and gets
    // SessionConflictError, never a lost update. A stricter level would abort such races with
    // serialization failures instead, and abort unrelated writers on predicate-lock overlaps.
    this.#beginWrite = [
      'begin isolation level read committed, read write',
      'set local synchronous_commit = on',
      ...local,
    ].join('; ');
    // Reads take several statements (session, branch, chain, bodies): one snapshot for all.
    // Read-only REPEATABLE READ transactions never fail with serialization errors.
    this.#beginRead = ['begin isolation level repeatable read, read only', ...local].join('; ');
  }

  /** Runs `work` in a READ COMMITTED transaction, again when it lost to a concurrent writer. */
  write<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return this.#run(this.#beginWrite, work);
  }

  /** Runs `work` in a read-only REPEATABLE READ transaction: one snapshot. */
  read<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    return this.#run(this.#beginRead, work);
  }

  /** Nothing to do: autovacuum returns the space of deleted rows to the tables. */
  async reclaimSpace(): Promise<void> {}

  /** The settings a write transaction runs under, read back from the server. */
  async settings(): Promise<PostgresSettings> {
    return await this.write(async (trx) => {
      const show = async (name: string): Promise<string> => {
        const { rows } = await sql<Record<string, string>>`show ${sql.raw(name)}`.execute(trx);
        return String(Object.values(rows[0] ?? {})[0]);
      };
      const ms = async (name: string): Promise<number> => {
        const { rows } = await sql<{ ms: number }>`
          select extract(epoch from current_setting(${name})::interval) * 1000 as ms
        `.execute(trx);
        return Number(rows[0]?.ms);
      };
      return {
        schema: this.#schema,
        isolation: await show('transaction_isolation'),
        synchronousCommit: await show('synchronous_commit'),
        statementTimeoutMs: await ms('statement_timeout'),
        lockTimeoutMs: await ms('lock_timeout'),
        idleInTransactionTimeoutMs: await ms('idle_in_transaction_session_timeout'),
        poolSize: this.#poolSize,
        serverVersion: await show('server_version'),
      };
    });
  }

  /**
   * Checks what the schema holds (refusing tables that are not ours, or a newer version) and
   * migrates it when needed; run once by `openPostgresStore`.
   */
  async prepare(): Promise<void> {
    const verdict = await this.read((trx) => inspectSchema(trx, this.#schema));
    if (verdict === 'current') return;
    try {
      await migrateSchema(this.db, this.#schema);
    } catch (error) {
      // Migrating again is harmless, whether or not the broken attempt committed.
      throw this.#translate(error, classifyPostgresError(error), 'work', false);
    }
  }

  /** Closes every connection of the pool. */
  async close(): Promise<void> {
    await this.db.destroy();
  }

  async #run<T>(begin: string, work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    for (let run = 1; ; run++) {
      const state: { phase: Phase } = { phase: 'work' };
      try {
        return await this.db
          .connection()
          .execute((connection) => this.#once(connection, begin, work, state));
      } catch (error) {
        const verdict = classifyPostgresError(error);
        if (verdict === 'rerun' && run < MAX_RUNS) {
          // Jittered, growing pauses spread the writers that collided.
          await sleep(Math.random() * 2 * run);
          continue;
        }
        // A pooled connection the server closed while idle (a restart) fails on first use:
        // nothing was committed, so one more try on a fresh connection is safe.
        if (verdict === 'connection' && state.phase === 'work' && run === 1) {
          await sleep(RECONNECT_PAUSE_MS);
          continue;
        }
        throw this.#translate(error, verdict, state.phase, begin === this.#beginWrite);
      }
    }
  }

  async #once<T>(
    connection: Kysely<StoreDatabase>,
    begin: string,
    work: (trx: Kysely<StoreDatabase>) => Promise<T>,
    state: { phase: Phase },
  ): Promise<T> {
    await sql.raw(begin).execute(connection);
    let result: T;
    try {
      result = await work(keepShapes(connection.withSchema(this.#schema), this.#shapes));
    } catch (error) {
      // The connection may be dead already; the error that matters is the first one.
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
    state.phase = 'commit';
    await sql`commit`.execute(connection);
    return result;
  }

  #translate(
    error: unknown,
    verdict: PostgresErrorVerdict,
    phase: Phase,
    writes: boolean,
  ): unknown {
    const reason = error instanceof Error ? error.message : String(error);
    switch (verdict) {
      case 'busy':
        return new SessionStoreBusyError(this.#limits.lockTimeoutMs, { cause: error });
      case 'rerun':
        // Lost to concurrent writers MAX_RUNS times in a row: heavy contention, try later.
        return new SessionStoreUnavailableError(
          'busy',
          `The session store at ${this.#where} kept losing to concurrent writers (${MAX_RUNS} tries): ${reason}`,
          { cause: error },
        );
      case 'timeout':
        return new SessionStoreUnavailableError(
          'timeout',
          `A statement of the session store at ${this.#where} ran past statement_timeout (${this.#limits.statementTimeoutMs} ms)`,
          { cause: error },
        );
      case 'connection':
        if (phase === 'commit' && writes) {
          return new SessionStoreUnavailableError(
            'outcome-unknown',
            `The connection to the session store at ${this.#where} broke during a commit, which may or may not have landed; retrying the same call is safe (${reason})`,
            { cause: error },
          );
        }
        return new SessionStoreUnavailableError(
          'unreachable',
          `The session store at ${this.#where} is unreachable; nothing was written (${reason})`,
          { cause: error },
        );
      case 'other':
        return error;
    }
  }
}
