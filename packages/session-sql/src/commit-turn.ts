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
import { requireBranch, requireSession } from './session-rows.js';
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
}

/** Validates and hashes a turn: all the CPU work, so the write lock is held briefly. */
export function prepareTurn(
  sessionId: string,
  turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta },
  expectedHead: string | null,
  branch: string | undefined,
): PreparedTurn {
  assertMessages(turn?.messages, 'messages');
  if (turn.messages.length === 0) throw new ConfigError('messages', 'a turn needs a message');
  if (expectedHead !== null && typeof expectedHead !== 'string') {
    throw new ConfigError('expectedHead', 'expected a checkpoint id or null');
  }
  const messages = turn.messages.map(encodeMessage);
  const metaJson = encodeMeta(turn.meta ?? {});
  const id = checkpointId(sessionId, expectedHead, messages, metaJson);
  // The meta as stored (a copy), so the returned checkpoint equals what `load` gives back.
  const meta = JSON.parse(metaJson) as CheckpointMeta;
  return { sessionId, branch, expectedHead, messages, metaJson, meta, id };
}

/** Inserts the bodies that are new and returns every message's key, in the turn's order. */
async function storeMessages(
  db: Kysely<StoreDatabase>,
  messages: readonly EncodedMessage[],
): Promise<number[]> {
  // Sorted by hash: writers inserting overlapping sets take row locks in one order (PostgreSQL).
  let missing = [...new Map(messages.map((m) => [m.hash.toString('hex'), m])).values()].sort(
    (a, b) => Buffer.compare(a.hash, b.hash),
  );
  const seqByHash = new Map<string, number>();
  // Under PostgreSQL's READ COMMITTED, a body that "already exists" for the insert can be gone
  // for the select: a concurrent deleteSession removed it in between. Insert what is missing
  // again; under SQLite's write lock the first pass always finds everything.
  for (let pass = 0; pass < 3 && missing.length > 0; pass++) {
    // One statement: rows are inserted (and their keys locked) in the order given.
    await db
      .insertInto('messages')
      .values(missing.map((message) => ({ hash: message.hash, ...packBody(message.body) })))
      .onConflict((conflict) => conflict.column('hash').doNothing())
      .execute();
    const rows = await db
      .selectFrom('messages')
      .select(['seq', 'hash'])
      .where(
        'hash',
        'in',
        missing.map((message) => message.hash),
      )
      .execute();
    for (const row of rows) seqByHash.set(toHex(row.hash), row.seq);
    missing = missing.filter((message) => !seqByHash.has(message.hash.toString('hex')));
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

/**
 * Appends a prepared turn inside a write transaction: checks the head (optimistic concurrency),
 * stores new bodies, adds the checkpoint, moves the head with a compare-and-set and clears the
 * branch's pending turn. A retry of a commit that already landed returns its checkpoint.
 */
export async function commitTurn(
  db: Kysely<StoreDatabase>,
  turn: PreparedTurn,
  now: number,
): Promise<Checkpoint> {
  const session = await requireSession(db, turn.sessionId);
  const branch = await requireBranch(db, session, turn.branch ?? session.current_branch);
  const actual = branch.head_id === null ? null : toHex(branch.head_id);
  const existing = await db
    .selectFrom('checkpoints')
    .select(['seq', 'turn', 'created_at'])
    .where('id', '=', turn.id)
    .where('session_seq', '=', session.seq)
    .executeTakeFirst();
  if (actual !== turn.expectedHead) {
    if (existing && actual === toHex(turn.id)) {
      return describe(turn, existing.turn, existing.created_at);
    }
    throw new SessionConflictError(session.id, turn.expectedHead, actual);
  }
  let target = existing;
  if (!target) {
    const messageSeqs = await storeMessages(db, turn.messages);
    const values = {
      id: turn.id,
      session_seq: session.seq,
      parent_seq: branch.head_seq,
      turn: (branch.head_turn ?? 0) + 1,
      created_at: now,
      meta: turn.metaJson,
    };
    const { seq } = await db
      .insertInto('checkpoints')
      .values(values)
      .returning('seq')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('checkpoint_messages')
      .values(
        messageSeqs.map((message_seq, position) => ({
          checkpoint_seq: seq,
          position,
          message_seq,
        })),
      )
      .execute();
    target = { seq, turn: values.turn, created_at: now };
  }
  let move = db
    .updateTable('branches')
    .set({ head_seq: target.seq, updated_at: now })
    .where('session_seq', '=', session.seq)
    .where('name', '=', branch.name);
  move =
    branch.head_seq === null
      ? move.where('head_seq', 'is', null)
      : move.where('head_seq', '=', branch.head_seq);
  const { numUpdatedRows } = await move.executeTakeFirst();
  // Under SQLite's write lock the head cannot have moved; under PostgreSQL's READ COMMITTED it can
  // (the update waits for the other writer's row lock, then finds the head changed: 0 rows).
  if (numUpdatedRows !== 1n) {
    const moved = await requireBranch(db, session, branch.name);
    const head = moved.head_id === null ? null : toHex(moved.head_id);
    // A concurrent retry of this very turn landed first: that is this commit's outcome too.
    if (head === toHex(turn.id)) return describe(turn, target.turn, target.created_at);
    throw new SessionConflictError(session.id, turn.expectedHead, head);
  }
  await db
    .updateTable('sessions')
    .set({ updated_at: now })
    .where('seq', '=', session.seq)
    .execute();
  await clearPendingTurn(db, session.seq, branch.name);
  return describe(turn, target.turn, target.created_at);
}
