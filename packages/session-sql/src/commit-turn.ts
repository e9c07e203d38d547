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

/** Where each turn's checkpoint is: inserted by this write, or stored before (reused). */
interface Landing {
  readonly seq: number;
  readonly turn: number;
  readonly created_at: number;
  readonly inserted: boolean;
}

/**
 * Adds the checkpoints of `prepared`, each on the one before from `branch`'s head: a checkpoint
 * already stored with the same id (a retry, or the same turn committed on another branch from
 * this head) is that turn, reused as it is. Returns where each landed.
 */
async function insertCheckpoints(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  sessionSeq: number,
  branch: { readonly head_seq: number | null; readonly head_turn: number | null },
  now: number,
): Promise<Landing[]> {
  const landings: Landing[] = [];
  let parent = { seq: branch.head_seq, turn: branch.head_turn ?? 0 };
  for (const turn of prepared) {
    const number = parent.turn + 1;
    const {
      rows: [inserted],
    } = await runShape(
      db,
      'checkpoint',
      [turn.id, sessionSeq, parent.seq, number, now, turn.metaJson] as const,
      (id, session_seq, parent_seq, turn, created_at, meta) =>
        db
          .insertInto('checkpoints')
          .values({ id, session_seq, parent_seq, turn, created_at, meta })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .returning('seq'),
    );
    let landing: Landing;
    if (inserted) {
      landing = { seq: inserted.seq, turn: number, created_at: now, inserted: true };
    } else {
      const existing = await findCheckpoint(db, turn.id, sessionSeq);
      if (!existing) throw new Error(`checkpoint ${toHex(turn.id)} was not stored`);
      landing = { ...existing, inserted: false };
    }
    landings.push(landing);
    parent = landing;
  }
  return landings;
}

/** Links the checkpoints this write inserted to their messages: one insert of each kind. */
async function linkMessages(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  landings: readonly Landing[],
): Promise<void> {
  const fresh = prepared.filter((_, index) => landings[index]?.inserted);
  if (fresh.length === 0) return;
  const messageSeqs = await storeMessages(
    db,
    fresh.flatMap((turn) => turn.messages),
  );
  const links: number[] = [];
  let next = 0;
  for (const [index, turn] of prepared.entries()) {
    const landing = landings[index] as Landing;
    if (!landing.inserted) continue;
    for (let position = 0; position < turn.messages.length; position++) {
      links.push(landing.seq, position, messageSeqs[next++] as number);
    }
  }
  const rows = links.length / 3;
  await runShape(db, sizedKey('links', rows), links, (...slots) =>
    db.insertInto('checkpoint_messages').values(
      Array.from({ length: rows }, (_, at) => ({
        checkpoint_seq: slots[3 * at] as number,
        position: slots[3 * at + 1] as number,
        message_seq: slots[3 * at + 2] as number,
      })),
    ),
  );
}

/** The checkpoints of turns that all landed before (a retry), or undefined if one did not. */
async function landedTurns(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  sessionSeq: number,
): Promise<Checkpoint[] | undefined> {
  const checkpoints: Checkpoint[] = [];
  for (const turn of prepared) {
    const existing = await findCheckpoint(db, turn.id, sessionSeq);
    if (!existing) return undefined;
    checkpoints.push(describe(turn, existing.turn, existing.created_at));
  }
  return checkpoints;
}

/**
 * Appends prepared turns in order, each on the one before, inside one write transaction: checks
 * the head (optimistic concurrency), adds a checkpoint per turn and the bodies that are new,
 * moves the head once with a compare-and-set and clears the branch's pending turn. All land or
 * none (the first failure throws). A retry returns the checkpoints of the turns that landed
 * before (the head is one of theirs) and lands the rest on it, as one commit per turn would.
 * `prepared[0]`'s `refusePending` is the write's: a later turn sits on a checkpoint of this
 * write, where nothing is journaled. With `serialWrites`
 * (SQLite: one write transaction at a time) the lookup at the start stays true until the
 * commit, so a pending turn it did not find is not there.
 */
export async function commitTurns(
  db: Kysely<StoreDatabase>,
  prepared: readonly PreparedTurn[],
  now: number,
  serialWrites: boolean,
): Promise<Checkpoint[]> {
  const first = prepared[0];
  const last = prepared.at(-1);
  if (first === undefined || last === undefined) throw new Error('no turn to commit');
  // No branch (undefined or null, as before the one-statement lookup): the current one.
  const named = first.branch ?? undefined;
  const { session, branch, pending } = await requireTarget(db, first.sessionId, named);
  const actual = headId(branch);
  // Turns that landed before (a retry) are returned as `commit` returns a landed turn: when the
  // head is one of these turns' checkpoints, the turns up to it landed, and the rest goes on it.
  let retried: Checkpoint[] = [];
  if (actual !== first.expectedHead) {
    const at = prepared.findIndex((turn) => toHex(turn.id) === actual);
    const landed =
      at < 0 ? undefined : await landedTurns(db, prepared.slice(0, at + 1), session.seq);
    if (!landed) throw new SessionConflictError(session.id, first.expectedHead, actual);
    if (landed.length === prepared.length) return landed;
    retried = landed;
  }
  const rest = prepared.slice(retried.length);
  const next = rest[0] as PreparedTurn;
  if (next.refusePending && pending && sameSeq(pending.base_seq, branch.head_seq)) {
    throw pendingConflict(session.id, branch.name, actual, pending.assistant);
  }
  const landings = await insertCheckpoints(db, rest, session.seq, branch, now);
  await linkMessages(db, rest, landings);
  const checkpoints = [
    ...retried,
    ...rest.map((turn, index) => {
      const landing = landings[index] as Landing;
      return describe(turn, landing.turn, landing.created_at);
    }),
  ];
  const from = branch.head_seq;
  const moveValues: unknown[] = [(landings.at(-1) as Landing).seq, now, session.seq, branch.name];
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
    // A concurrent retry of these very turns landed first: that is this write's outcome too.
    if (head === toHex(last.id)) return checkpoints;
    throw new SessionConflictError(session.id, first.expectedHead, head);
  }
  if (next.refusePending && !serialWrites) {
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
  return checkpoints;
}

/** Appends one prepared turn: `commitTurns` of that turn alone. */
export async function commitTurn(
  db: Kysely<StoreDatabase>,
  turn: PreparedTurn,
  now: number,
  serialWrites: boolean,
): Promise<Checkpoint> {
  const [checkpoint] = await commitTurns(db, [turn], now, serialWrites);
  return checkpoint as Checkpoint;
}
