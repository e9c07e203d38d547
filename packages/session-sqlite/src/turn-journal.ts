import {
  assertMessages,
  ConfigError,
  canonicalJson,
  type Message,
  type PendingTurn,
  type ToolResultBlock,
  toolUsesOf,
} from '@mh/core';
import type { Kysely } from 'kysely';
import { toHex } from './content-hash.js';
import { clearPendingTurn } from './pending-turn-rows.js';
import {
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

/** Replaces the branch's pending turn with `assistant` on `baseHead`, all calls not started. */
export async function writePendingTurn(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string; baseHead: string | null },
  assistant: Message,
  callIds: readonly string[],
  now: number,
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await requireBranch(db, session, target.branch);
  const baseSeq =
    target.baseHead === null
      ? null
      : await requireCheckpoint(db, session, target.baseHead, 'baseHead');
  await clearPendingTurn(db, session.seq, branch.name);
  await db
    .insertInto('pending_turns')
    .values({
      session_seq: session.seq,
      branch: branch.name,
      base_seq: baseSeq,
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
      })),
    )
    .execute();
}

/** Checks a tool result bound for the journal against the call it answers. */
export function checkJournaledResult(callId: string, result: ToolResultBlock): void {
  assertMessages([{ id: 'journal', role: 'user', content: [result] }], 'result');
  if (result.type !== 'tool_result') throw new ConfigError('result.type', "expected 'tool_result'");
  if (result.toolUseId !== callId) {
    throw new ConfigError('result.toolUseId', `answers ${result.toolUseId}, not call ${callId}`);
  }
}

/** Marks a call of the branch's pending turn started, or finished with `result`. */
export async function markCall(
  db: Kysely<StoreDatabase>,
  target: { sessionId: string; branch: string },
  callId: string,
  result: ToolResultBlock | undefined,
): Promise<void> {
  const session = await requireSession(db, target.sessionId);
  const branch = await requireBranch(db, session, target.branch);
  const { numUpdatedRows } = await db
    .updateTable('pending_calls')
    .set(result === undefined ? { started: 1 } : { started: 1, result: canonicalJson(result) })
    .where('session_seq', '=', session.seq)
    .where('branch', '=', branch.name)
    .where('call_id', '=', String(callId))
    .executeTakeFirst();
  if (numUpdatedRows !== 1n) {
    const where = `the pending turn of branch ${JSON.stringify(branch.name)} in session ${JSON.stringify(session.id)}`;
    throw new ConfigError('callId', `unknown call ${JSON.stringify(callId)} in ${where}`);
  }
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
    .select(['call_id', 'started', 'result'])
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
      const result =
        row.result === null ? {} : { result: JSON.parse(row.result) as ToolResultBlock };
      return [{ call, started: row.started === 1, ...result }];
    }),
  };
}
