import { type AskedQuestion, SessionConflictError } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import type { Kysely } from 'kysely';
import { type BranchRow, requireSession, type SessionRow } from './session-rows.js';
import type { StoreDatabase } from './store-database.js';
import { headId, lockBranch } from './turn-journal.js';

/**
 * Holds a call of the branch's pending turn on `question` (started, no result), under the
 * branch's lock; `SessionConflictError` when the pending turn has no such call or it finished.
 */
export async function holdOnQuestion(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string },
  callId: string,
  question: AskedQuestion,
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await lockBranch(db, session, target.branch);
  const { numUpdatedRows } = await db
    .updateTable('pending_calls')
    .set({ started: 1, question: canonicalJson(question) })
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId)
    .where('result', 'is', null)
    .executeTakeFirst();
  if (numUpdatedRows !== 1n) await conflictOnCall(db, session, branch, callId, 'already finished');
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
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await lockBranch(db, session, target.branch);
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
    await conflictOnCall(db, session, branch, callId, 'not waiting on this question any more');
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

/** Throws the `SessionConflictError` of a journal write that found `callId` not as expected. */
async function conflictOnCall(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  branch: BranchRow,
  callId: string,
  known: string,
): Promise<never> {
  const found = await db
    .selectFrom('pending_calls')
    .select('call_id')
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId)
    .executeTakeFirst();
  const head = headId(branch);
  const where = `the pending turn of branch ${JSON.stringify(branch.name)}`;
  throw new SessionConflictError(
    session.id,
    head,
    head,
    found
      ? `call ${JSON.stringify(callId)} of ${where} is ${known} (another writer got there first)`
      : `call ${JSON.stringify(callId)} is not in ${where}: another writer replaced or cleared it`,
  );
}
