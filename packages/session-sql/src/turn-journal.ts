import {
  type AskedQuestion,
  ConfigError,
  type Message,
  type PendingTurn,
  SessionConflictError,
  type ToolResultBlock,
  toolUsesOf,
} from '@mh/core';
import { assertMessages, canonicalJson } from '@mh/core/internal';
import type { Kysely } from 'kysely';
import { toHex } from './content-hash.js';
import { clearPendingTurn } from './pending-turn-rows.js';
import {
  type BranchRow,
  requireBranch,
  requireCheckpoint,
  requireSession,
  type SessionRow,
} from './session-rows.js';
import type { StoreDatabase } from './store-database.js';

/** Checks an assistant message bound for the journal; returns its tool calls' ids. */
export function checkJournaledAssistant(assistant: Message): string[] {
  assertMessages([assistant], 'assistant');
  if (assistant.role !== 'assistant') {
    throw new ConfigError('assistant.role', "a pending turn's message must be the assistant's");
  }
  const ids = toolUsesOf(assistant).map((call) => call.id);
  if (new Set(ids).size !== ids.length) {
    throw new ConfigError('assistant.content', 'two tool calls share an id');
  }
  return ids;
}

/**
 * Locks the branch row until the transaction ends and returns it as it is now. A no-op update is
 * the one lock both engines spell alike: under PostgreSQL's READ COMMITTED it waits for a
 * concurrent commit or journal write on the branch and the re-read then sees its outcome; under
 * SQLite the write lock is already held.
 */
export async function lockBranch(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  name: string,
): Promise<BranchRow> {
  await db
    .updateTable('branches')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('session_seq', '=', session.seq)
    .where('name', '=', String(name))
    .execute();
  return await requireBranch(db, session, name);
}

/** The branch's head checkpoint id (hex), or null for an empty branch. */
export const headId = (branch: BranchRow): string | null =>
  branch.head_id === null ? null : toHex(branch.head_id);

const sameSeq = (a: number | null, b: number | null): boolean =>
  a === null || b === null ? a === b : Number(a) === Number(b);

/**
 * Journals `assistant` on `baseHead` with all calls not started, as one compare-and-set on the
 * branch: `SessionConflictError` when the head moved, or when another writer's pending turn sits
 * on this head; the same assistant again is a no-op; a stale pending turn (a crash's) is replaced.
 */
export async function writePendingTurn(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string; baseHead: string | null },
  assistant: Message,
  callIds: readonly string[],
  now: number,
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await lockBranch(db, session, target.branch);
  if (target.baseHead !== null) await requireCheckpoint(db, session, target.baseHead, 'baseHead');
  const head = headId(branch);
  if (head !== target.baseHead) {
    throw new SessionConflictError(session.id, target.baseHead, head);
  }
  const existing = await db
    .selectFrom('pending_turns')
    .select(['base_seq', 'assistant'])
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .executeTakeFirst();
  if (existing && sameSeq(existing.base_seq, branch.head_seq)) {
    const holder = (JSON.parse(existing.assistant) as Message).id;
    if (holder === assistant.id) return;
    throw new SessionConflictError(
      session.id,
      target.baseHead,
      head,
      `branch ${JSON.stringify(branch.name)} already has a pending turn on head ${head ?? '(none)'} (assistant message ${JSON.stringify(holder)}, not ${JSON.stringify(assistant.id)}): another writer is running it`,
    );
  }
  await clearPendingTurn(db, session.seq, branch.name);
  await db
    .insertInto('pending_turns')
    .values({
      session_seq: session.seq,
      branch: branch.name,
      base_seq: branch.head_seq,
      assistant: canonicalJson(assistant),
      created_at: now,
    })
    .execute();
  if (callIds.length === 0) return;
  await db
    .insertInto('pending_calls')
    .values(
      callIds.map((call_id, position) => ({
        session_seq: session.seq,
        branch: branch.name,
        call_id,
        position,
        started: 0,
        result: null,
        question: null,
        answers: null,
      })),
    )
    .execute();
}

/** Rejects a call id that is not a non-empty string. */
export function checkCallId(callId: unknown): asserts callId is string {
  if (typeof callId !== 'string' || callId.length === 0) {
    throw new ConfigError('callId', 'expected the id of a tool call');
  }
}

/** Checks a tool result bound for the journal against the call it answers. */
export function checkJournaledResult(callId: string, result: ToolResultBlock): void {
  assertMessages([{ id: 'journal', role: 'user', content: [result] }], 'result');
  if (result.type !== 'tool_result') throw new ConfigError('result.type', "expected 'tool_result'");
  if (result.toolUseId !== callId) {
    throw new ConfigError('result.toolUseId', `answers ${result.toolUseId}, not call ${callId}`);
  }
}

/**
 * Marks a call of the branch's pending turn started, or finished with `result`, under the branch's
 * lock; `SessionConflictError` when the pending turn has no such call (replaced or cleared).
 */
export async function markCall(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string },
  callId: string,
  result: ToolResultBlock | undefined,
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await lockBranch(db, session, target.branch);
  // A start is a claim: only a call nobody started can be started, so two writers finishing the
  // same turn (a live one and one that took it for crashed) never both run it.
  let update = db
    .updateTable('pending_calls')
    .set(
      result === undefined
        ? { started: 1 }
        : // A finished call waits on no question any more.
          { started: 1, result: canonicalJson(result), question: null },
    )
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', callId);
  if (result === undefined) update = update.where('started', '=', 0);
  const { numUpdatedRows } = await update.executeTakeFirst();
  if (numUpdatedRows !== 1n)
    await conflictOnCall(db, session, branch, callId, 'was already started by another writer');
}

/** The pending turn of a branch, or undefined. */
export async function readPendingTurn(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  branchName: string,
): Promise<PendingTurn | undefined> {
  const branch = await requireBranch(db, session, branchName);
  const turn = await db
    .selectFrom('pending_turns as t')
    .leftJoin('checkpoints as c', 'c.seq', 't.base_seq')
    .select(['t.assistant', 'c.id as base_id'])
    .where('t.session_seq', '=', session.seq)
    .where('t.branch', '=', branch.name)
    .executeTakeFirst();
  if (!turn) return undefined;
  const rows = await db
    .selectFrom('pending_calls')
    .select(['call_id', 'started', 'result', 'question', 'answers'])
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .orderBy('position')
    .execute();
  const assistant = JSON.parse(turn.assistant) as Message;
  const calls = new Map(toolUsesOf(assistant).map((call) => [call.id, call]));
  return {
    baseHead: turn.base_id === null ? null : toHex(turn.base_id),
    assistant,
    calls: rows.flatMap((row) => {
      const call = calls.get(row.call_id);
      if (!call) return [];
      return [
        {
          call,
          started: Number(row.started) === 1,
          ...(row.result === null ? {} : { result: JSON.parse(row.result) as ToolResultBlock }),
          ...(row.question === null ? {} : { question: JSON.parse(row.question) as AskedQuestion }),
          ...(row.answers === null ? {} : { answers: JSON.parse(row.answers) as unknown[] }),
        },
      ];
    }),
  };
}

/**
 * Throws the `SessionConflictError` of a journal write that found `callId` not as expected: in the
 * pending turn, the call is `found` (`was already started by another writer`, …); not in it, the
 * writer that journaled the call lost its turn (another one replaced or committed it).
 */
export async function conflictOnCall(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  branch: BranchRow,
  callId: string,
  found: string,
): Promise<never> {
  const known = await db
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
    known
      ? `call ${JSON.stringify(callId)} of ${where} ${found}`
      : `call ${JSON.stringify(callId)} is not in ${where}: another writer replaced or cleared it`,
  );
}
