import { ConfigError } from '@mh/core';
import type { Kysely } from 'kysely';
import { branchExists, requireBranch, type SessionRow } from './session-rows.js';
import type { StoreDatabase } from './store-database.js';

/** Rejects a branch name that is not a non-empty string. */
export function checkBranchName(name: unknown, field: string): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new ConfigError(field, 'expected a non-empty branch name');
  }
}

/** Makes `name` the session's current branch. */
export async function makeCurrent(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  name: string,
  now: number,
): Promise<SessionRow> {
  await db
    .updateTable('sessions')
    .set({ current_branch: name, updated_at: now })
    .where('seq', '=', session.seq)
    .execute();
  return { ...session, current_branch: name, updated_at: now };
}

/**
 * Creates branch `name` at `headSeq` (null: empty) and makes it current. Nothing is copied: the
 * new branch shares every checkpoint and message with the history it starts from.
 */
export async function startBranch(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  name: string,
  headSeq: number | null,
  now: number,
): Promise<SessionRow> {
  if (await branchExists(db, session.seq, name)) {
    throw new ConfigError(
      'newBranch',
      `branch ${JSON.stringify(name)} already exists in session ${JSON.stringify(session.id)}`,
    );
  }
  await db
    .insertInto('branches')
    .values({ session_seq: session.seq, name, head_seq: headSeq, updated_at: now })
    .execute();
  return await makeCurrent(db, session, name, now);
}

/** The head key of an existing branch (for fork). */
export async function headOf(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  name: string,
): Promise<number | null> {
  return (await requireBranch(db, session, name)).head_seq;
}
