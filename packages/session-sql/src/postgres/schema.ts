import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { Migrator, sql } from 'kysely';
import { SessionSchemaError } from '../errors.js';
import { MIGRATION_NAMES, migrationProvider } from '../migrations.js';
import type { SchemaTypes } from '../store-backend.js';
import type { StoreDatabase } from '../store-database.js';

// The PostgreSQL half of the schema: column types, the check of what a schema already holds, and
// migrations (transactional DDL under kysely's advisory lock, so concurrent openers migrate once).

/** PostgreSQL's spelling of the schema's column kinds. */
export const postgresSchemaTypes: SchemaTypes = {
  // Times in ms and counters exceed int4; node-postgres returns int8 as text unless told (the
  // store's pool parses it as a number).
  integer: 'bigint',
  // Never jsonb: it reorders keys, so stored bytes would stop matching their hash.
  bytes: 'bytea',
  generatedKey: (column) => column.primaryKey().generatedAlwaysAsIdentity(),
  // Heap tables have no clustered form; the primary key index serves the lookups.
  clustered: (table) => table,
};

/** Our own migration tables: a schema shared with another kysely application keeps both apart. */
const MIGRATION_TABLE = 'mh_migration';
const MIGRATION_LOCK_TABLE = 'mh_migration_lock';
const STORE_TABLES = [
  'sessions',
  'messages',
  'checkpoints',
  'checkpoint_messages',
  'branches',
  'pending_turns',
  'pending_calls',
];

/** What the schema holds: nothing of ours yet, our tables at an older version, or up to date. */
export type SchemaVerdict = 'absent' | 'outdated' | 'current';

/**
 * Looks at `schema` before anything is written to it. Tables named like ours that we did not
 * create, or a migration this version does not know (a newer mini-harness), are refused with
 * `SessionSchemaError`.
 */
export async function inspectSchema(
  db: Kysely<StoreDatabase>,
  schema: string,
): Promise<SchemaVerdict> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = ${schema}
  `.execute(db);
  const tables = rows.map((row) => row.table_name);
  if (!tables.includes(MIGRATION_TABLE)) {
    const clash = tables.filter((table) => STORE_TABLES.includes(table));
    if (clash.length === 0) return 'absent';
    throw new SessionSchemaError(
      schema,
      'foreign-schema',
      `already holds tables mini-harness did not create (${clash.join(', ')}); choose another schema`,
    );
  }
  const applied = await sql<{ name: string }>`
    select name from ${sql.id(schema, MIGRATION_TABLE)}
  `.execute(db);
  const names = applied.rows.map((row) => row.name);
  const unknown = names.filter((name) => !MIGRATION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new SessionSchemaError(
      schema,
      'newer-schema',
      `was written by a newer version (schema ${unknown.join(', ')}); refusing to migrate it down`,
    );
  }
  return MIGRATION_NAMES.every((name) => names.includes(name)) ? 'current' : 'outdated';
}

/** The store's migrations, applied inside `schema`. */
function scopedProvider(schema: string): MigrationProvider {
  const base = migrationProvider(postgresSchemaTypes);
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const migrations = await base.getMigrations();
      return Object.fromEntries(
        Object.entries(migrations).map(([name, migration]) => [
          name,
          { up: (db: Kysely<unknown>) => migration.up(db.withSchema(schema)) },
        ]),
      );
    },
  };
}

/**
 * Creates `schema` if needed and brings it to the latest version. kysely runs PostgreSQL
 * migrations in one transaction holding an advisory lock, so workers opening a fresh database at
 * the same moment migrate it exactly once.
 */
export async function migrateSchema(db: Kysely<StoreDatabase>, schema: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: scopedProvider(schema),
    migrationTableSchema: schema,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
