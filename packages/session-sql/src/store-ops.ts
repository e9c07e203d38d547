import type {
  AskedQuestion,
  BranchInfo,
  Checkpoint,
  Message,
  PendingTurn,
  SessionInfo,
  SessionState,
  ToolResultBlock,
} from '@mh/core';
import type { Kysely } from 'kysely';
import { headOf, makeCurrent, startBranch } from './branch-ops.js';
import { commitTurn, commitTurns, type PreparedTurn } from './commit-turn.js';
import { toHex } from './content-hash.js';
import { loadChain, loadState } from './load-branch.js';
import { claimAnswered, holdOnQuestion } from './question-journal.js';
import { insertSession, removeSession, sessionInfos } from './session-ops.js';
import {
  branchRows,
  requireBranch,
  requireCheckpoint,
  requireSession,
  requireTarget,
  type SessionRow,
} from './session-rows.js';
import type { StoreBackend, WriteModel } from './store-backend.js';
import type { StoreDatabase } from './store-database.js';
import { markCall, readPendingTurn, writePendingTurn } from './turn-journal.js';

// Every store call, after its arguments were checked and its CPU work (hashing, encoding) done,
// is one named operation on a database handle inside a transaction. Named, with plain-data
// arguments and results, so the same operation runs in this thread (PostgreSQL) or in the thread
// that owns a SQLite connection, where a batch of them shares one transaction and one fsync.

type Db = Kysely<StoreDatabase>;

async function switchTo(
  db: Db,
  sessionId: string,
  branch: string,
  change: (session: SessionRow) => Promise<SessionRow>,
): Promise<SessionState> {
  const session = await change(await requireSession(db, sessionId));
  return await loadState(db, session, await requireBranch(db, session, branch));
}

/** The operations that only read, each run in one read transaction (one snapshot). */
export const readOps = {
  getSession: async (db: Db, a: { sessionId: string }): Promise<SessionInfo | undefined> =>
    (await sessionInfos(db, a.sessionId))[0],
  listSessions: (db: Db, _: Record<string, never>): Promise<SessionInfo[]> => sessionInfos(db),
  load: async (
    db: Db,
    a: { sessionId: string; branch: string | undefined },
  ): Promise<SessionState> => {
    const session = await requireSession(db, a.sessionId);
    const row = await requireBranch(db, session, a.branch ?? session.current_branch);
    return await loadState(db, session, row);
  },
  listCheckpoints: async (
    db: Db,
    a: { sessionId: string; branch: string | undefined },
  ): Promise<Checkpoint[]> => {
    const session = await requireSession(db, a.sessionId);
    const row = await requireBranch(db, session, a.branch ?? session.current_branch);
    return (await loadChain(db, session.id, row.head_seq)).checkpoints;
  },
  listBranches: async (db: Db, a: { sessionId: string }): Promise<BranchInfo[]> => {
    const session = await requireSession(db, a.sessionId);
    return (await branchRows(db, session.seq)).map((row) => ({
      name: row.name,
      head: row.head_id === null ? null : toHex(row.head_id),
      turns: row.head_turn ?? 0,
      updatedAt: row.updated_at,
    }));
  },
  pendingTurn: async (
    db: Db,
    a: { sessionId: string; branch: string },
  ): Promise<PendingTurn | undefined> =>
    readPendingTurn(db, await requireTarget(db, a.sessionId, a.branch)),
};

/** The operations that write, each run in a write transaction (or a savepoint of a batch's). */
export const writeOps = {
  createSession: (
    db: Db,
    a: { id: string; title: string | undefined; now: number },
  ): Promise<SessionInfo> => insertSession(db, a.id, a.title, a.now),
  deleteSession: (db: Db, a: { sessionId: string }): Promise<void> =>
    removeSession(db, a.sessionId),
  commit: (
    db: Db,
    a: { prepared: PreparedTurn; now: number },
    { serialWrites }: WriteModel,
  ): Promise<Checkpoint> => commitTurn(db, a.prepared, a.now, serialWrites),
  commitMany: async (
    db: Db,
    a: { prepared: readonly PreparedTurn[]; now: number },
    { serialWrites }: WriteModel,
  ): Promise<Checkpoint[]> => commitTurns(db, a.prepared, a.now, serialWrites),
  rewind: (
    db: Db,
    a: { sessionId: string; checkpointId: string | null; newBranch: string; now: number },
  ): Promise<SessionState> =>
    switchTo(db, a.sessionId, a.newBranch, async (session) => {
      const at =
        a.checkpointId === null ? null : await requireCheckpoint(db, session, a.checkpointId);
      return await startBranch(db, session, a.newBranch, at, a.now);
    }),
  fork: (
    db: Db,
    a: { sessionId: string; newBranch: string; fromBranch: string | undefined; now: number },
  ): Promise<SessionState> =>
    switchTo(db, a.sessionId, a.newBranch, async (session) => {
      const at = await headOf(db, session, a.fromBranch ?? session.current_branch);
      return await startBranch(db, session, a.newBranch, at, a.now);
    }),
  switchBranch: (
    db: Db,
    a: { sessionId: string; branch: string; now: number },
  ): Promise<SessionState> =>
    switchTo(db, a.sessionId, a.branch, async (session) => {
      await requireBranch(db, session, a.branch);
      return await makeCurrent(db, session, a.branch, a.now);
    }),
  journalTurn: (
    db: Db,
    a: {
      target: { sessionId: string; branch: string; baseHead: string | null };
      assistant: Message;
      callIds: readonly string[];
      now: number;
    },
    { serialWrites }: WriteModel,
  ): Promise<void> => writePendingTurn(db, a.target, a.assistant, a.callIds, a.now, serialWrites),
  markCall: (
    db: Db,
    a: { sessionId: string; branch: string; callId: string; result: ToolResultBlock | undefined },
    { serialWrites }: WriteModel,
  ): Promise<void> =>
    markCall(db, { sessionId: a.sessionId, branch: a.branch }, a.callId, a.result, serialWrites),
  holdOnQuestion: (
    db: Db,
    a: { sessionId: string; branch: string; callId: string; question: AskedQuestion },
    { serialWrites }: WriteModel,
  ): Promise<void> =>
    holdOnQuestion(
      db,
      { sessionId: a.sessionId, branch: a.branch },
      a.callId,
      a.question,
      serialWrites,
    ),
  claimAnswered: (
    db: Db,
    a: { sessionId: string; branch: string; callId: string; answers: readonly unknown[] },
    { serialWrites }: WriteModel,
  ): Promise<void> =>
    claimAnswered(
      db,
      { sessionId: a.sessionId, branch: a.branch },
      a.callId,
      a.answers,
      serialWrites,
    ),
};

/** The name of a read operation. */
export type ReadOp = keyof typeof readOps;
/** The name of a write operation. */
export type WriteOp = keyof typeof writeOps;
/** The name of any operation. */
export type StoreOp = ReadOp | WriteOp;
type OpsOf<K> = K extends ReadOp
  ? (typeof readOps)[K]
  : K extends WriteOp
    ? (typeof writeOps)[K]
    : never;
/** The arguments of operation `K`. */
export type OpArgs<K extends StoreOp> = Parameters<OpsOf<K>>[1];
/** What operation `K` resolves to. */
export type OpResult<K extends StoreOp> = Awaited<ReturnType<OpsOf<K>>>;

/** Whether `op` names a write operation. */
export const isWriteOp = (op: string): op is WriteOp => Object.hasOwn(writeOps, op);

/** Runs operation `op` on `db` (already inside the right kind of transaction). */
export function runOp<K extends StoreOp>(
  db: Db,
  op: K,
  args: OpArgs<K>,
  model: WriteModel,
): Promise<OpResult<K>> {
  const run = (isWriteOp(op) ? writeOps[op] : readOps[op as ReadOp]) as (
    db: Db,
    args: unknown,
    model: WriteModel,
  ) => Promise<OpResult<K>>;
  return run(db, args, model);
}

/**
 * Where a store's operations run: in this thread over a `StoreBackend` (PostgreSQL), or in a
 * thread that owns the connection (SQLite, `SqliteThread`).
 */
export interface StoreRunner {
  /** Runs one operation in its own transaction, or in a batch's that commits it durably. */
  run<K extends StoreOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>>;
  /** Returns the space freed by deletions to the file system, where the engine needs telling. */
  reclaimSpace(): Promise<void>;
  /** Closes the connection; later calls fail. */
  close(): Promise<void>;
}

/** Runs each operation in this thread, in its own transaction of `backend`. */
export function backendRunner(backend: StoreBackend): StoreRunner {
  return {
    run: (op, args) =>
      isWriteOp(op)
        ? backend.write((db) => runOp(db, op, args, backend))
        : backend.read((db) => runOp(db, op, args, backend)),
    reclaimSpace: () => backend.reclaimSpace(),
    close: () => backend.close(),
  };
}
