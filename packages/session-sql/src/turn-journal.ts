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
import { runShape, sizedKey } from './query-shapes.js';
import {
  type BranchRow,
  headId,
  requireCheckpoint,
  requireTarget,
  type SessionRow,
  sameSeq,
  type Target,
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
 * Locks the branch row until the transaction ends and returns the target as it is now. Where
 * writes run one at a time (`serialWrites`, SQLite) the write lock is already held, and nothing
 * is locked. Otherwise (PostgreSQL's READ COMMITTED) a no-op update of the row waits for a
 * concurrent commit or journal write on the branch, and the lookup after it sees its outcome.
 */
export async function lockTarget(
  db: Kysely<StoreDatabase>,
  sessionId: string,
  branch: string,
  serialWrites: boolean,
): Promise<Target> {
  if (!serialWrites) {
    await db
      .updateTable('branches')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('session_seq', '=', (eb) =>
        eb.selectFrom('sessions').select('seq').where('id', '=', String(sessionId)),
      )
      .where('name', '=', String(branch))
      .execute();
  }
  return await requireTarget(db, sessionId, branch);
}

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
  serialWrites: boolean,
): Promise<void> {
  const locked = await lockTarget(db, target.sessionId, target.branch, serialWrites);
  const { session, branch, pending: existing } = locked;
  const head = headId(branch);
  if (head !== target.baseHead) {
    // An unknown checkpoint is the caller's mistake, not another writer's doing.
    if (target.baseHead !== null) await requireCheckpoint(db, session, target.baseHead, 'baseHead');
    throw new SessionConflictError(session.id, target.baseHead, head);
  }
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
  // The lookup ran under the branch's lock: no pending turn it did not see can be there.
  if (existing) await clearPendingTurn(db, session.seq, branch.name);
  const turn = [session.seq, branch.name, branch.head_seq, canonicalJson(assistant), now] as const;
  await runShape(db, 'pending-turn', turn, (session_seq, name, base_seq, json, created_at) =>
    db.insertInto('pending_turns').values({
      session_seq,
      branch: name,
      base_seq,
      assistant: json,
      created_at,
    }),
  );
  if (callIds.length === 0) return;
  const calls = callIds.flatMap((callId, position) => [session.seq, branch.name, callId, position]);
  await runShape(db, sizedKey('pending-calls', callIds.length), calls, (...slots) =>
    db.insertInto('pending_calls').values(
      callIds.map((_, at) => ({
        session_seq: slots[4 * at] as number,
        branch: slots[4 * at + 1] as string,
        call_id: slots[4 * at + 2] as string,
        position: slots[4 * at + 3] as number,
        started: 0,
        result: null,
        question: null,
        answers: null,
      })),
    ),
  );
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
  serialWrites: boolean,
): Promise<void> {
  const { session, branch } = await lockTarget(db, target.sessionId, target.branch, serialWrites);
  // A start is a claim: only a call nobody started can be started, so two writers finishing the
  // same turn (a live one and one that took it for crashed) never both run it.
  const where = [session.seq, branch.name, callId] as const;
  const { numAffectedRows } =
    result === undefined
      ? await runShape(db, 'call-start', where, (session_seq, name, call_id) =>
          db
            .updateTable('pending_calls')
            .set({ started: 1 })
            .where('session_seq', '=', session_seq)
            .where('branch', '=', name)
            .where('call_id', '=', call_id)
            .where('started', '=', 0),
        )
      : await runShape(
          db,
          'call-end',
          [canonicalJson(result), ...where] as const,
          (json, session_seq, name, call_id) =>
            db
              .updateTable('pending_calls')
              // A finished call waits on no question any more.
              .set({ started: 1, result: json, question: null })
              .where('session_seq', '=', session_seq)
              .where('branch', '=', name)
              .where('call_id', '=', call_id),
        );
  if (BigInt(numAffectedRows ?? 0n) !== 1n)
    await conflictOnCall(db, session, branch, callId, 'was already started by another writer');
}

/** The pending turn of a target's branch, or undefined. */
export async function readPendingTurn(
  db: Kysely<StoreDatabase>,
  { session, branch, pending: turn }: Target,
): Promise<PendingTurn | undefined> {
  if (!turn) return undefined;
  const { rows } = await runShape(
    db,
    'pending-calls',
    [session.seq, branch.name] as const,
    (session_seq, name) =>
      db
        .selectFrom('pending_calls')
        .select(['call_id', 'started', 'result', 'question', 'answers'])
        .where('session_seq', '=', session_seq)
        .where('branch', '=', name)
        .orderBy('position'),
  );
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
