import type { Kysely } from 'kysely';
import { runShape } from './query-shapes.js';
import type { StoreDatabase } from './store-database.js';

/** Deletes the pending turn of a branch and its calls, if any. */
export async function clearPendingTurn(
  db: Kysely<StoreDatabase>,
  sessionSeq: number,
  branch: string,
): Promise<void> {
  const values = [sessionSeq, branch] as const;
  await runShape(db, 'clear-calls', values, (session_seq, name) =>
    db
      .deleteFrom('pending_calls')
      .where('session_seq', '=', session_seq)
      .where('branch', '=', name),
  );
  await runShape(db, 'clear-turn', values, (session_seq, name) =>
    db
      .deleteFrom('pending_turns')
      .where('session_seq', '=', session_seq)
      .where('branch', '=', name),
  );
}
