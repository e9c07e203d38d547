import type { Checkpoint, CheckpointMeta, Message, SessionState } from '@mh/core';
import type { Kysely } from 'kysely';
import { toHex } from './content-hash.js';
import { unpackBody } from './message-codec.js';
import type { BranchRow, SessionRow } from './session-rows.js';
import type { StoreDatabase } from './store-database.js';

/**
 * The ancestry of `headSeq` as a recursive common table expression: one indexed step per turn,
 * inside the database, so a branch of any length loads in a fixed number of queries.
 */
function withChain(db: Kysely<StoreDatabase>, headSeq: number) {
  return db.withRecursive('chain(seq, parent_seq, turn)', (qc) =>
    qc
      .selectFrom('checkpoints')
      .select(['seq', 'parent_seq', 'turn'])
      .where('seq', '=', headSeq)
      .unionAll((up) =>
        up
          .selectFrom('checkpoints as c')
          .innerJoin('chain', 'chain.parent_seq', 'c.seq')
          .select(['c.seq', 'c.parent_seq', 'c.turn']),
      ),
  );
}

/** The history from the root to `headSeq`: its checkpoints and messages, root first. */
export async function loadChain(
  db: Kysely<StoreDatabase>,
  sessionId: string,
  headSeq: number | null,
): Promise<{ checkpoints: Checkpoint[]; messages: Message[] }> {
  if (headSeq === null) return { checkpoints: [], messages: [] };
  const rows = await withChain(db, headSeq)
    .selectFrom('chain')
    .innerJoin('checkpoints as c', 'c.seq', 'chain.seq')
    .leftJoin('checkpoints as p', 'p.seq', 'c.parent_seq')
    .select(['c.seq', 'c.id', 'p.id as parent_id', 'c.turn', 'c.created_at', 'c.meta'])
    .orderBy('c.turn')
    .execute();
  const bodies = await withChain(db, headSeq)
    .selectFrom('chain')
    .innerJoin('checkpoint_messages as cm', 'cm.checkpoint_seq', 'chain.seq')
    .innerJoin('messages as m', 'm.seq', 'cm.message_seq')
    .select(['cm.checkpoint_seq', 'm.codec', 'm.body'])
    .orderBy('chain.turn')
    .orderBy('cm.position')
    .execute();
  const messages: Message[] = [];
  const idsByCheckpoint = new Map<number, string[]>();
  for (const { checkpoint_seq, codec, body } of bodies) {
    const message = JSON.parse(unpackBody(codec, body)) as Message;
    messages.push(message);
    const ids = idsByCheckpoint.get(checkpoint_seq) ?? [];
    ids.push(message.id);
    idsByCheckpoint.set(checkpoint_seq, ids);
  }
  const checkpoints = rows.map(
    (row): Checkpoint => ({
      id: toHex(row.id),
      sessionId,
      parentId: row.parent_id === null ? null : toHex(row.parent_id),
      turn: row.turn,
      createdAt: row.created_at,
      messageIds: idsByCheckpoint.get(row.seq) ?? [],
      meta: JSON.parse(row.meta) as CheckpointMeta,
    }),
  );
  return { checkpoints, messages };
}

/** The state of a branch: its head and the full history behind it. */
export async function loadState(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  branch: BranchRow,
): Promise<SessionState> {
  const { checkpoints, messages } = await loadChain(db, session.id, branch.head_seq);
  return {
    sessionId: session.id,
    branch: branch.name,
    head: branch.head_id === null ? null : toHex(branch.head_id),
    messages,
    checkpoints,
  };
}
