import { ConfigError, type SessionInfo } from '@mh/core';
import type { Kysely } from 'kysely';
import { fromHex, toHex } from './content-hash.js';
import { runShape } from './query-shapes.js';
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

/** The branch's head checkpoint id (hex), or null for an empty branch. */
export const headId = (branch: BranchRow): string | null =>
  branch.head_id === null ? null : toHex(branch.head_id);

/** Whether two row keys are the same (null: an empty branch's head); drivers differ in type. */
export const sameSeq = (a: number | null, b: number | null): boolean =>
  a === null || b === null ? a === b : Number(a) === Number(b);

/** A branch's pending turn as a target lookup finds it. */
export interface PendingRow {
  /** The assistant message, as canonical JSON. */
  readonly assistant: string;
  readonly base_seq: number | null;
  /** The base checkpoint's public id. */
  readonly base_id: Uint8Array | null;
}

/** What a write (or a read of the journal) acts on: the session, its branch, the pending turn. */
export interface Target {
  readonly session: SessionRow;
  readonly branch: BranchRow;
  readonly pending: PendingRow | undefined;
}

/** A session row's columns, from `sessions as s`: what a `SessionRow` holds. */
export const SESSION_COLUMNS = [
  's.seq',
  's.id',
  's.title',
  's.created_at',
  's.updated_at',
  's.current_branch',
] as const;

/** The lookup `requireTarget` runs: the current branch when `branchName` is undefined. */
function targetQuery(
  db: Kysely<StoreDatabase>,
  sessionId: string | undefined,
  branchName: string | undefined,
) {
  return db
    .selectFrom('sessions as s')
    .leftJoin('branches as b', (join) => {
      const on = join.onRef('b.session_seq', '=', 's.seq');
      return branchName === undefined
        ? on.onRef('b.name', '=', 's.current_branch')
        : on.on('b.name', '=', branchName);
    })
    .leftJoin('checkpoints as h', 'h.seq', 'b.head_seq')
    .leftJoin('pending_turns as t', (join) =>
      join.onRef('t.session_seq', '=', 'b.session_seq').onRef('t.branch', '=', 'b.name'),
    )
    .leftJoin('checkpoints as c', 'c.seq', 't.base_seq')
    .select([
      ...SESSION_COLUMNS,
      'b.name as branch_name',
      'b.head_seq',
      'h.id as head_id',
      'h.turn as head_turn',
      'b.updated_at as branch_updated_at',
      't.assistant as pending_assistant',
      't.base_seq as pending_base_seq',
      'c.id as pending_base_id',
    ])
    .where('s.id', '=', sessionId as string);
}

/**
 * The session, its branch (`branchName`, or the current one) with its head's id and turn, and the
 * branch's pending turn: one statement. A `ConfigError` names an unknown session or branch.
 */
export async function requireTarget(
  db: Kysely<StoreDatabase>,
  sessionId: string,
  branchName: string | undefined,
): Promise<Target> {
  const current = branchName === undefined;
  const values = current ? [String(sessionId)] : [String(sessionId), String(branchName)];
  const {
    rows: [row],
  } = await runShape(db, current ? 'target:current' : 'target', values, (...slots) =>
    targetQuery(db, slots[0], slots[1]),
  );
  if (!row) throw new ConfigError('sessionId', `unknown session ${JSON.stringify(sessionId)}`);
  const session: SessionRow = {
    seq: row.seq,
    id: row.id,
    title: row.title,
    created_at: row.created_at,
    updated_at: row.updated_at,
    current_branch: row.current_branch,
  };
  if (row.branch_name === null || row.branch_updated_at === null) {
    // The branch looked up: a null or other non-string name is reported as given, not as current.
    const name = current ? session.current_branch : branchName;
    throw new ConfigError(
      'branch',
      `unknown branch ${JSON.stringify(name)} in session ${JSON.stringify(session.id)}`,
    );
  }
  return {
    session,
    branch: {
      name: row.branch_name,
      head_seq: row.head_seq,
      head_id: row.head_id,
      head_turn: row.head_turn,
      updated_at: row.branch_updated_at,
    },
    pending:
      row.pending_assistant === null
        ? undefined
        : {
            assistant: row.pending_assistant,
            base_seq: row.pending_base_seq,
            base_id: row.pending_base_id,
          },
  };
}
