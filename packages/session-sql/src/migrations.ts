import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { SchemaTypes } from './store-backend.js';

/** The names of the migrations this version knows, oldest first. */
export const MIGRATION_NAMES: readonly string[] = [
  '0001_content_addressed_sessions',
  '0002_pending_call_questions',
];

function initialSchema(types: SchemaTypes): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const { integer, bytes, generatedKey, clustered } = types;
      await db.schema
        .createTable('sessions')
        .addColumn('seq', integer, generatedKey)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('title', 'text')
        .addColumn('created_at', integer, (c) => c.notNull())
        .addColumn('updated_at', integer, (c) => c.notNull())
        .addColumn('current_branch', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('messages')
        .addColumn('seq', integer, generatedKey)
        .addColumn('hash', bytes, (c) => c.notNull().unique())
        .addColumn('codec', integer, (c) => c.notNull())
        .addColumn('body', bytes, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('checkpoints')
        .addColumn('seq', integer, generatedKey)
        .addColumn('id', bytes, (c) => c.notNull().unique())
        .addColumn('session_seq', integer, (c) => c.notNull().references('sessions.seq'))
        .addColumn('parent_seq', integer, (c) => c.references('checkpoints.seq'))
        .addColumn('turn', integer, (c) => c.notNull())
        .addColumn('created_at', integer, (c) => c.notNull())
        .addColumn('meta', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('checkpoint_messages')
        .addColumn('checkpoint_seq', integer, (c) => c.notNull().references('checkpoints.seq'))
        .addColumn('position', integer, (c) => c.notNull())
        .addColumn('message_seq', integer, (c) => c.notNull().references('messages.seq'))
        .addPrimaryKeyConstraint('checkpoint_messages_pk', ['checkpoint_seq', 'position'])
        .$call(clustered)
        .execute();
      await db.schema
        .createTable('branches')
        .addColumn('session_seq', integer, (c) => c.notNull().references('sessions.seq'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('head_seq', integer, (c) => c.references('checkpoints.seq'))
        .addColumn('updated_at', integer, (c) => c.notNull())
        .addPrimaryKeyConstraint('branches_pk', ['session_seq', 'name'])
        .$call(clustered)
        .execute();
      await db.schema
        .createTable('pending_turns')
        .addColumn('session_seq', integer, (c) => c.notNull())
        .addColumn('branch', 'text', (c) => c.notNull())
        .addColumn('base_seq', integer, (c) => c.references('checkpoints.seq'))
        .addColumn('assistant', 'text', (c) => c.notNull())
        .addColumn('created_at', integer, (c) => c.notNull())
        .addPrimaryKeyConstraint('pending_turns_pk', ['session_seq', 'branch'])
        .$call(clustered)
        .addForeignKeyConstraint('pending_turns_branch', ['session_seq', 'branch'], 'branches', [
          'session_seq',
          'name',
        ])
        .execute();
      await db.schema
        .createTable('pending_calls')
        .addColumn('session_seq', integer, (c) => c.notNull())
        .addColumn('branch', 'text', (c) => c.notNull())
        .addColumn('call_id', 'text', (c) => c.notNull())
        .addColumn('position', integer, (c) => c.notNull())
        .addColumn('started', integer, (c) => c.notNull().defaultTo(0))
        .addColumn('result', 'text')
        .addPrimaryKeyConstraint('pending_calls_pk', ['session_seq', 'branch', 'call_id'])
        .$call(clustered)
        .addForeignKeyConstraint('pending_calls_turn', ['session_seq', 'branch'], 'pending_turns', [
          'session_seq',
          'branch',
        ])
        .execute();
      // Indexes that deletions and foreign-key checks need; without them a delete scans tables.
      // (pending_turns.base_seq has none: at most one row per branch.)
      const indexes: [string, string, string][] = [
        ['checkpoints_session', 'checkpoints', 'session_seq'],
        ['checkpoints_parent', 'checkpoints', 'parent_seq'],
        ['checkpoint_messages_message', 'checkpoint_messages', 'message_seq'],
        ['branches_head', 'branches', 'head_seq'],
      ];
      for (const [name, table, column] of indexes) {
        await db.schema.createIndex(name).on(table).column(column).execute();
      }
    },
  };
}

/**
 * A pending call's question (`journalQuestion`) and the answers it runs again with
 * (`journalAnswer`), as JSON. Nullable columns added in place: rows of an older database read as
 * calls that never asked, and an older version's writes leave them null.
 */
const pendingCallQuestions: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('pending_calls').addColumn('question', 'text').execute();
    await db.schema.alterTable('pending_calls').addColumn('answers', 'text').execute();
  },
};

/** The store's migrations, defined in code, for kysely's `Migrator`. */
export function migrationProvider(types: SchemaTypes): MigrationProvider {
  const [initial = '', questions = ''] = MIGRATION_NAMES;
  return {
    getMigrations: async (): Promise<Record<string, Migration>> => ({
      [initial]: initialSchema(types),
      [questions]: pendingCallQuestions,
    }),
  };
}
