import { ConfigError, DEFAULT_BRANCH, type SessionInfo } from '@mh/core';
import type { Kysely } from 'kysely';
import { requireSession, SESSION_COLUMNS, type SessionRow, toSessionInfo } from './session-rows.js';
import type { StoreDatabase } from './store-database.js';

/** Sessions with the turn count of their current branch, most recently updated first. */
export async function sessionInfos(
  db: Kysely<StoreDatabase>,
  sessionId?: string,
): Promise<SessionInfo[]> {
  let query = db
    .selectFrom('sessions as s')
    .innerJoin('branches as b', (join) =>
      join.onRef('b.session_seq', '=', 's.seq').onRef('b.name', '=', 's.current_branch'),
    )
    .leftJoin('checkpoints as h', 'h.seq', 'b.head_seq')
    .select([...SESSION_COLUMNS, 'h.turn']);
  if (sessionId !== undefined) query = query.where('s.id', '=', String(sessionId));
  const rows = await query.orderBy('s.updated_at', 'desc').orderBy('s.seq', 'desc').execute();
  return rows.map((row) => toSessionInfo(row, row.turn ?? 0));
}

/** Inserts a session on an empty default branch; an existing id is a `ConfigError`. */
export async function insertSession(
  db: Kysely<StoreDatabase>,
  id: string,
  title: string | undefined,
  now: number,
): Promise<SessionInfo> {
  const clash = await db
    .selectFrom('sessions')
    .select('seq')
    .where('id', '=', id)
    .executeTakeFirst();
  if (clash) throw new ConfigError('id', `session ${JSON.stringify(id)} already exists`);
  const { seq } = await db
    .insertInto('sessions')
    .values({
      id,
      title: title ?? null,
      created_at: now,
      updated_at: now,
      current_branch: DEFAULT_BRANCH,
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('branches')
    .values({ session_seq: seq, name: DEFAULT_BRANCH, head_seq: null, updated_at: now })
    .execute();
  const row: SessionRow = {
    seq,
    id,
    title: title ?? null,
    created_at: now,
    updated_at: now,
    current_branch: DEFAULT_BRANCH,
  };
  return toSessionInfo(row, 0);
}

const CHUNK = 500;

/** Deletes a session, its branches, journal and checkpoints, and the bodies only it used. */
export async function removeSession(db: Kysely<StoreDatabase>, sessionId: string): Promise<void> {
  const session = await requireSession(db, sessionId);
  const own = db.selectFrom('checkpoints').select('seq').where('session_seq', '=', session.seq);
  const used = await db
    .selectFrom('checkpoint_messages')
    .select('message_seq')
    .distinct()
    .where('checkpoint_seq', 'in', own)
    .execute();
  for (const table of ['pending_calls', 'pending_turns', 'branches'] as const) {
    await db.deleteFrom(table).where('session_seq', '=', session.seq).execute();
  }
  await db.deleteFrom('checkpoint_messages').where('checkpoint_seq', 'in', own).execute();
  await db.deleteFrom('checkpoints').where('session_seq', '=', session.seq).execute();
  await db.deleteFrom('sessions').where('seq', '=', session.seq).execute();
  for (let start = 0; start < used.length; start += CHUNK) {
    const seqs = used.slice(start, start + CHUNK).map((row) => row.message_seq);
    await db
      .deleteFrom('messages')
      .where('seq', 'in', seqs)
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(
            selectFrom('checkpoint_messages as cm')
              .select('cm.position')
              .whereRef('cm.message_seq', '=', 'messages.seq'),
          ),
        ),
      )
      .execute();
  }
}
