import type { ColumnDataType, ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { StoreDatabase } from './store-database.js';

/** How a dialect spells the few column kinds the portable schema needs. */
export interface SchemaTypes {
  /** A 64-bit integer (times in ms, counters). */
  readonly integer: ColumnDataType;
  /** Raw bytes (32-byte hashes). */
  readonly bytes: ColumnDataType;
  /** Makes a column the table's generated integer key. */
  readonly generatedKey: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /**
   * Stores a table's rows in primary-key order (SQLite: `WITHOUT ROWID`), for small rows looked up
   * by that key; the identity where the engine has no such option.
   */
  readonly clustered: <T extends string, C extends string>(
    table: CreateTableBuilder<T, C>,
  ) => CreateTableBuilder<T, C>;
}

/** How an engine runs write transactions, as far as the store logic must know. */
export interface WriteModel {
  /**
   * Write transactions run one at a time and hold the whole database from their first statement
   * (SQLite's `BEGIN IMMEDIATE`): what a write reads stays true until it commits, and rows need
   * no lock of their own. False where writers interleave (PostgreSQL's READ COMMITTED): a write
   * locks the rows its decision rests on.
   */
  readonly serialWrites: boolean;
}

/**
 * The seam between the store logic (dialect-neutral kysely queries) and one database engine. The
 * SQLite backend lives in `sqlite/backend.ts`; a PostgreSQL backend implements the same interface
 * and reuses every query of the store unchanged.
 */
export interface StoreBackend extends WriteModel {
  /** The kysely instance; use it only through `read` and `write`. */
  readonly db: Kysely<StoreDatabase>;
  /**
   * Runs `work` in a transaction that holds the write lock from its first statement (SQLite:
   * `BEGIN IMMEDIATE`), commits when it resolves and rolls back when it throws.
   */
  write<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T>;
  /** Runs `work` in a read-only transaction: one consistent snapshot, no write lock. */
  read<T>(work: (trx: Kysely<StoreDatabase>) => Promise<T>): Promise<T>;
  /** Returns the space freed by deletions to the file system, where the engine needs telling. */
  reclaimSpace(): Promise<void>;
  /** Closes the connection; later calls fail. */
  close(): Promise<void>;
}
