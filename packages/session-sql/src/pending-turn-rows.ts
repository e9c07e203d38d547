import type { Kysely } from 'kysely';
import type { StoreDatabase } from './store-database.js';

/** Deletes the pending turn of a branch and its calls, if any. */
export async function clearPendingTurn(
  db: Kysely<StoreDatabase>,
  sessionSeq: number,
  branch: string,
): Promise<void> {
  await db
    .deleteFrom('pending_calls')
    .where('session_seq', '=', sessionSeq)
    .where('branch', '=', branch)
    .execute();
  await db
    .deleteFrom('pending_turns')
    .where('session_seq', '=', sessionSeq)
    .where('branch', '=', branch)
    .execute();
}
