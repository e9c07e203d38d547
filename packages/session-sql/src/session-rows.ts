import { ConfigError, type SessionInfo } from '@mh/core';
import type { Kysely } from 'kysely';
import { fromHex } from './content-hash.js';
import type { StoreDatabase } from './store-database.js';

/** A session row as the store reads it. */
export interface SessionRow {
  readonly seq: number;
  readonly id: string;
  readonly title: string | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly current_branch: string;
}

/** A branch row with its head checkpoint's public id and turn. */
export interface BranchRow {
  readonly name: string;
  readonly head_seq: number | null;
  readonly head_id: Uint8Array | null;
  readonly head_turn: number | null;
  readonly updated_at: number;
}

/** The session with this id; a `ConfigError` naming the id when there is none. */
export async function requireSession(
  db: Kysely<StoreDatabase>,
  sessionId: string,
): Promise<SessionRow> {
  const row = await db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', String(sessionId))
    .executeTakeFirst();
  if (!row) throw new ConfigError('sessionId', `unknown session ${JSON.stringify(sessionId)}`);
  return row;
}

/** The branches of a session (or the one named), by name, with their heads' ids and turns. */
export async function branchRows(
  db: Kysely<StoreDatabase>,
  sessionSeq: number,
  name?: string,
): Promise<BranchRow[]> {
  let query = db
    .selectFrom('branches as b')
    .leftJoin('checkpoints as h', 'h.seq', 'b.head_seq')
    .select(['b.name', 'b.head_seq', 'h.id as head_id', 'h.turn as head_turn', 'b.updated_at'])
    .where('b.session_seq', '=', sessionSeq);
  if (name !== undefined) query = query.where('b.name', '=', String(name));
  return await query.orderBy('b.name').execute();
}

/** The named branch of a session; a `ConfigError` naming it when there is none. */
export async function requireBranch(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  name: string,
): Promise<BranchRow> {
  const [row] = await branchRows(db, session.seq, name);
  if (!row) {
    throw new ConfigError(
      'branch',
      `unknown branch ${JSON.stringify(name)} in session ${JSON.stringify(session.id)}`,
    );
  }
  return row;
}

/** Whether a branch of this name exists. */
export async function branchExists(
  db: Kysely<StoreDatabase>,
  sessionSeq: number,
  name: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('branches')
    .select('name')
    .where('session_seq', '=', sessionSeq)
    .where('name', '=', name)
    .executeTakeFirst();
  return row !== undefined;
}

/** The internal key of a checkpoint of this session; a `ConfigError` naming the id otherwise. */
export async function requireCheckpoint(
  db: Kysely<StoreDatabase>,
  session: SessionRow,
  checkpointId: string,
  field = 'checkpointId',
): Promise<number> {
  const row = await db
    .selectFrom('checkpoints')
    .select('seq')
    .where('id', '=', fromHex(checkpointId, field))
    .where('session_seq', '=', session.seq)
    .executeTakeFirst();
  if (!row) {
    const where = `in session ${JSON.stringify(session.id)}`;
    throw new ConfigError(field, `unknown checkpoint ${JSON.stringify(checkpointId)} ${where}`);
  }
  return row.seq;
}

/** A session row as the port's `SessionInfo`. */
export function toSessionInfo(row: SessionRow, turns: number): SessionInfo {
  return {
    id: row.id,
    ...(row.title === null ? {} : { title: row.title }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    branch: row.current_branch,
    turns,
  };
}
