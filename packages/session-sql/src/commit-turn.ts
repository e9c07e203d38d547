import {
  type Checkpoint,
  type CheckpointMeta,
  ConfigError,
  type Message,
  SessionConflictError,
} from '@mh/core';
import { assertMessages } from '@mh/core/internal';
import type { Kysely } from 'kysely';
import {
  checkpointId,
  type EncodedMessage,
  encodeMessage,
  encodeMeta,
  toHex,
} from './content-hash.js';
import { packBody } from './message-codec.js';
import { clearPendingTurn } from './pending-turn-rows.js';
import { runShape, sizedKey } from './query-shapes.js';
import { headId, requireBranch, requireTarget, sameSeq } from './session-rows.js';
import type { StoreDatabase } from './store-database.js';

/** A turn to commit, validated and encoded outside the transaction. */
export interface PreparedTurn {
  readonly sessionId: string;
  readonly branch: string | undefined;
  readonly expectedHead: string | null;
  readonly messages: readonly EncodedMessage[];
  readonly metaJson: string;
  readonly meta: CheckpointMeta;
  /** The content-derived id the checkpoint will have if it lands on `expectedHead`. */
  readonly id: Buffer;
  /** Fail rather than clear a pending turn journaled on `expectedHead` (`pendingTurn: 'refuse'`). */
  readonly refusePending: boolean;
}

/** Validates and hashes a turn: all the CPU work, so the write lock is held briefly. */
export function prepareTurn(
  sessionId: string,
  turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta },
  expectedHead: string | null,
  branch: string | undefined,
  pendingTurn: unknown = 'clear',
): PreparedTurn {
  assertMessages(turn?.messages, 'messages');
  if (turn.messages.length === 0) throw new ConfigError('messages', 'a turn needs a message');
  if (expectedHead !== null && typeof expectedHead !== 'string') {
    throw new ConfigError('expectedHead', 'expected a checkpoint id or null');
  }
  if (pendingTurn !== 'clear' && pendingTurn !== 'refuse') {
    throw new ConfigError('pendingTurn', "expected 'clear' or 'refuse'");
  }
  const messages = turn.messages.map(encodeMessage);
  const metaJson = encodeMeta(turn.meta ?? {});
  const id = checkpointId(sessionId, expectedHead, messages, metaJson);
  // The meta as stored (a copy), so the returned checkpoint equals what `load` gives back.
  const meta = JSON.parse(metaJson) as CheckpointMeta;
  const refusePending = pendingTurn === 'refuse';
  return { sessionId, branch, expectedHead, messages, metaJson, meta, id, refusePending };
}

/** Inserts the bodies that are new and returns every message's key, in the turn's order. */
async function storeMessages(
  db: Kysely<StoreDatabase>,
  messages: readonly EncodedMessage[],
): Promise<number[]> {
  // Sorted by hash: writers inserting overlapping sets take row locks in one order (PostgreSQL).
  // Each body is packed (deflated) once, however many passes it takes.
  let missing = [...new Map(messages.map((m) => [m.hash.toString('hex'), m])).values()]
    .sort((a, b) => Buffer.compare(a.hash, b.hash))
    .map((message) => ({ hash: message.hash, ...packBody(message.body) }));
  const seqByHash = new Map<string, number>();
  const found = (rows: readonly { seq: number; hash: Uint8Array }[]): void => {
    for (const row of rows) seqByHash.set(toHex(row.hash), row.seq);
    missing = missing.filter((message) => !seqByHash.has(message.hash.toString('hex')));
  };
  // Under PostgreSQL's READ COMMITTED, a body that "already exists" for the insert can be gone
  // for the select: a concurrent deleteSession removed it in between. Insert what is missing
  // again; under SQLite's write lock the first pass always finds everything.
  for (let pass = 0; pass < 3 && missing.length > 0; pass++) {
    // One statement: rows are inserted (and their keys locked) in the order given. It returns
    // the rows it inserted; only bodies stored before (a shared history) need looking up.
    const rows = missing;
    const values = rows.flatMap((row) => [row.hash, row.codec, row.body]);
    const inserted = await runShape(db, sizedKey('messages', rows.length), values, (...slots) =>
      db
        .insertInto('messages')
        .values(
          rows.map((_, at) => ({
            hash: slots[3 * at] as Buffer,
            codec: slots[3 * at + 1] as number,
            body: slots[3 * at + 2] as Uint8Array,
          })),
        )
        .onConflict((conflict) => conflict.column('hash').doNothing())
        .returning(['seq', 'hash']),
    );
    found(inserted.rows);
    if (missing.length === 0) break;
    found(
      await db
        .selectFrom('messages')
        .select(['seq', 'hash'])
        .where(
          'hash',
          'in',
          missing.map((message) => message.hash),
        )
        .execute(),
    );
  }
  return messages.map((message) => {
    const seq = seqByHash.get(message.hash.toString('hex'));
    if (seq === undefined) throw new Error(`message ${message.id} was not stored`);
    return seq;
  });
}

/** The checkpoint as the port describes it. */
function describe(turn: PreparedTurn, seqTurn: number, createdAt: number): Checkpoint {
  return {
    id: toHex(turn.id),
    sessionId: turn.sessionId,
    parentId: turn.expectedHead,
    turn: seqTurn,
    createdAt,
    messageIds: turn.messages.map(({ id }) => id),
    meta: turn.meta,
  };
}

/** The conflict of a commit told to refuse the pending turn it found on the head. */
function pendingConflict(
  sessionId: string,
  branch: string,
  head: string | null,
  assistantJson: string,
): SessionConflictError {
  const holder = (JSON.parse(assistantJson) as Message).id;
  return new SessionConflictError(
    sessionId,
    head,
    head,
    `branch ${JSON.stringify(branch)} has a pending turn on head ${head ?? '(none)'} (assistant message ${JSON.stringify(holder)}): finish it before committing`,
  );
}

/** The checkpoint `id` of the session, if it is stored. */
async function findCheckpoint(
  db: Kysely<StoreDatabase>,
  id: Buffer,
  sessionSeq: number,
): Promise<{ seq: number; turn: number; created_at: number } | undefined> {
  return await db
    .selectFrom('checkpoints')
    .select(['seq', 'turn', 'created_at'])
    .where('id', '=', id)
    .where('session_seq', '=', sessionSeq)
    .executeTakeFirst();
}

/**
 * Appends a prepared turn inside a write transaction: checks the head (optimistic concurrency),
 * adds the checkpoint and the bodies that are new, moves the head with a compare-and-set and
 * clears the branch's pending turn. A retry of a commit that already landed returns its
 * checkpoint. With `serialWrites` (SQLite: one write transaction at a time) the lookup at the
 * start stays true until the commit, so a pending turn it did not find is not there.
 */
export async function commitTurn(
  db: Kysely<StoreDatabase>,
  turn: PreparedTurn,
  now: number,
  serialWrites: boolean,
): Promise<Checkpoint> {
  // No branch (undefined or null, as before the one-statement lookup): the current one.
  const named = turn.branch ?? undefined;
  const { session, branch, pending } = await requireTarget(db, turn.sessionId, named);
  const actual = headId(branch);
  if (actual !== turn.expectedHead) {
    const existing = await findCheckpoint(db, turn.id, session.seq);
    if (existing && actual === toHex(turn.id)) {
      return describe(turn, existing.turn, existing.created_at);
    }
    throw new SessionConflictError(session.id, turn.expectedHead, actual);
  }
  if (turn.refusePending && pending && sameSeq(pending.base_seq, branch.head_seq)) {
    throw pendingConflict(session.id, branch.name, actual, pending.assistant);
  }
  const values = {
    id: turn.id,
    session_seq: session.seq,
    parent_seq: branch.head_seq,
    turn: (branch.head_turn ?? 0) + 1,
    created_at: now,
    meta: turn.metaJson,
  };
  // The checkpoint's id is its content and parent: one already stored (a retry, or the same turn
  // committed on another branch from this head) is this turn, and is reused as it is.
  const {
    rows: [inserted],
  } = await runShape(
    db,
    'checkpoint',
    [values.id, values.session_seq, values.parent_seq, values.turn, now, values.meta] as const,
    (id, session_seq, parent_seq, turn, created_at, meta) =>
      db
        .insertInto('checkpoints')
        .values({ id, session_seq, parent_seq, turn, created_at, meta })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .returning('seq'),
  );
  let target: { seq: number; turn: number; created_at: number };
  if (inserted) {
    const messageSeqs = await storeMessages(db, turn.messages);
    const links = messageSeqs.flatMap((message_seq, position) => [
      inserted.seq,
      position,
      message_seq,
    ]);
    await runShape(db, sizedKey('links', messageSeqs.length), links, (...slots) =>
      db.insertInto('checkpoint_messages').values(
        messageSeqs.map((_, at) => ({
          checkpoint_seq: slots[3 * at] as number,
          position: slots[3 * at + 1] as number,
          message_seq: slots[3 * at + 2] as number,
        })),
      ),
    );
    target = { seq: inserted.seq, turn: values.turn, created_at: now };
  } else {
    const existing = await findCheckpoint(db, turn.id, session.seq);
    if (!existing) throw new Error(`checkpoint ${toHex(turn.id)} was not stored`);
    target = existing;
  }
  const from = branch.head_seq;
  const moveValues: unknown[] = [target.seq, now, session.seq, branch.name];
  if (from !== null) moveValues.push(from);
  const { numAffectedRows } = await runShape(
    db,
    from === null ? 'move:empty' : 'move',
    moveValues,
    (...[head_seq, updated_at, session_seq, name, old]) => {
      const move = db
        .updateTable('branches')
        .set({ head_seq: head_seq as number, updated_at: updated_at as number })
        .where('session_seq', '=', session_seq as number)
        .where('name', '=', name as string);
      return old === undefined
        ? move.where('head_seq', 'is', null)
        : move.where('head_seq', '=', old as number);
    },
  );
  // Under SQLite's write lock the head cannot have moved; under PostgreSQL's READ COMMITTED it can
  // (the update waits for the other writer's row lock, then finds the head changed: 0 rows).
  if (BigInt(numAffectedRows ?? 0n) !== 1n) {
    const head = headId(await requireBranch(db, session, branch.name));
    // A concurrent retry of this very turn landed first: that is this commit's outcome too.
    if (head === toHex(turn.id)) return describe(turn, target.turn, target.created_at);
    throw new SessionConflictError(session.id, turn.expectedHead, head);
  }
  if (turn.refusePending && !serialWrites) {
    // Under READ COMMITTED a turn may have been journaled since the lookup; the branch row is
    // locked now (the head move), so what this read finds stays until the commit.
    const journaled = await db
      .selectFrom('pending_turns')
      .select(['base_seq', 'assistant'])
      .where('session_seq', '=', session.seq)
      .where('branch', '=', branch.name)
      .executeTakeFirst();
    if (journaled && sameSeq(journaled.base_seq, branch.head_seq)) {
      throw pendingConflict(session.id, branch.name, actual, journaled.assistant);
    }
  }
  await runShape(db, 'touch-session', [now, session.seq], (updated_at, seq) =>
    db.updateTable('sessions').set({ updated_at }).where('seq', '=', seq),
  );
  // Under READ COMMITTED a journal write may have landed since the lookup: clear regardless.
  if (pending !== undefined || !serialWrites) await clearPendingTurn(db, session.seq, branch.name);
  return describe(turn, target.turn, target.created_at);
}

/**
 * Appends prepared turns in order, each on the one before, inside one write transaction: all land
 * or none (the first failure throws). A retry of turns that all landed (the head is the last
 * one's checkpoint) returns their checkpoints, as `commitTurn` returns a landed turn's.
 */
export async function commitTurns(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  now: number,
  serialWrites: boolean,
): Promise<Checkpoint[]> {
  const landed: Checkpoint[] = [];
  for (const [index, turn] of prepared.entries()) {
    try {
      landed.push(await commitTurn(db, turn, now, serialWrites));
    } catch (error) {
      const last = prepared.at(-1) as PreparedTurn;
      const already =
        index === 0 &&
        prepared.length > 1 &&
        SessionConflictError.isInstance(error) &&
        error.actualHead === toHex(last.id);
      if (!already) throw error;
      return await landedTurns(db, prepared, error);
    }
  }
  return landed;
}

/** The checkpoints of turns that all landed before (a retry), or the conflict if one did not. */
async function landedTurns(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  conflict: SessionConflictError,
): Promise<Checkpoint[]> {
  const { session } = await requireTarget(db, (prepared[0] as PreparedTurn).sessionId, undefined);
  const checkpoints: Checkpoint[] = [];
  for (const turn of prepared) {
    const existing = await findCheckpoint(db, turn.id, session.seq);
    if (!existing) throw conflict;
    checkpoints.push(describe(turn, existing.turn, existing.created_at));
  }
  return checkpoints;
}
