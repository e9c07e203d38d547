import type { AskedQuestion } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import type { Kysely } from 'kysely';
import type { StoreDatabase } from './store-database.js';
import { conflictOnCall, lockTarget } from './turn-journal.js';

/**
 * Holds a call of the branch's pending turn on `question` (started, no result), under the
 * branch's lock; `SessionConflictError` when the pending turn has no such call or it finished.
 */
export async function holdOnQuestion(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string },
  callId: string,
  question: AskedQuestion,
  serialWrites: boolean,
): Promise<void> {
  const { session, branch } = await lockTarget(db, target.sessionId, target.branch, serialWrites);
  const { numUpdatedRows } = await db
    .updateTable('pending_calls')
    .set({ started: 1, question: canonicalJson(question) })
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId)
    .where('result', 'is', null)
    .executeTakeFirst();
  if (numUpdatedRows !== 1n)
    await conflictOnCall(
      db,
      session,
      branch,
      callId,
      'is already finished (another writer got there first)',
    );
}

/**
 * Claims a call held on a question to run it again with `answers`, under the branch's lock: only
 * while it waits on a question with one answer fewer, so two resumes never both claim it.
 */
export async function claimAnswered(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string },
  callId: string,
  answers: readonly unknown[],
  serialWrites: boolean,
): Promise<void> {
  const { session, branch } = await lockTarget(db, target.sessionId, target.branch, serialWrites);
  const row = await db
    .selectFrom('pending_calls')
    .select(['question', 'result'])
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId)
    .executeTakeFirst();
  const waiting =
    row?.question === null || row?.question === undefined
      ? undefined
      : (JSON.parse(row.question) as AskedQuestion);
  if (row === undefined || row.result !== null || waiting?.answers.length !== answers.length - 1) {
    await conflictOnCall(
      db,
      session,
      branch,
      callId,
      'is not waiting on this question any more (another writer got there first)',
    );
    return;
  }
  await db
    .updateTable('pending_calls')
    .set({ started: 1, question: null, answers: canonicalJson(answers) })
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId)
    .execute();
}
