import {
  assertOptions,
  type BranchInfo,
  type Checkpoint,
  type CheckpointMeta,
  type CommitOptions,
  ConfigError,
  type Message,
  newMessageId,
  type PendingTurn,
  type SessionInfo,
  type SessionState,
  type SessionStore,
  type ToolResultBlock,
} from '@mh/core';
import type { Kysely } from 'kysely';
import { checkBranchName, headOf, makeCurrent, startBranch } from './branch-ops.js';
import { commitTurn, prepareTurn } from './commit-turn.js';
import { toHex } from './content-hash.js';
import { loadChain, loadState } from './load-branch.js';
import { insertSession, removeSession, sessionInfos } from './session-ops.js';
import {
  branchRows,
  requireBranch,
  requireCheckpoint,
  requireSession,
  type SessionRow,
} from './session-rows.js';
import type { StoreBackend } from './store-backend.js';
import type { StoreDatabase } from './store-database.js';
import {
  checkCallId,
  checkJournaledAssistant,
  checkJournaledResult,
  markCall,
  readPendingTurn,
  writePendingTurn,
} from './turn-journal.js';

/** Injected behaviour of a store. */
export interface SessionStoreHooks {
  /** The clock for `createdAt`/`updatedAt`, ms since epoch (default `Date.now`). */
  readonly now: () => number;
  /** Mints ids for `createSession` without one (default `ses_…` from `newMessageId`). */
  readonly newSessionId: () => string;
}

const defaultHooks: SessionStoreHooks = {
  now: () => Date.now(),
  newSessionId: () => newMessageId('ses'),
};

/**
 * The `SessionStore` logic shared by every SQL engine: content-addressed checkpoints with
 * branches, optimistic commits and a durable journal of the turn in flight, written as portable
 * kysely queries. What differs between engines (transactions, locking, errors, schema types) is
 * behind `StoreBackend`; `SqliteSessionStore` and `PostgresSessionStore` are the two engines.
 */
export class SqlSessionStore implements SessionStore {
  readonly #backend: StoreBackend;
  readonly #hooks: SessionStoreHooks;
  #closed = false;

  /** Wraps an open backend; `openSqliteStore` and `openPostgresStore` are the ways to get one. */
  constructor(backend: StoreBackend, hooks: Partial<SessionStoreHooks> = {}) {
    this.#backend = backend;
    this.#hooks = { ...defaultHooks, ...hooks };
  }

  #write<T>(work: (db: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    this.#assertOpen();
    return this.#backend.write(work);
  }

  #read<T>(work: (db: Kysely<StoreDatabase>) => Promise<T>): Promise<T> {
    this.#assertOpen();
    return this.#backend.read(work);
  }

  #assertOpen(): void {
    if (this.#closed) throw new ConfigError('store', 'the session store is closed');
  }

  /** Creates a session on an empty `main` branch; an id already in use is a `ConfigError`. */
  async createSession(
    options: { readonly id?: string; readonly title?: string } = {},
  ): Promise<SessionInfo> {
    // A misspelt `title` would otherwise create an untitled session without a word.
    assertOptions(options, ['id', 'title'], '');
    const id = options.id ?? this.#hooks.newSessionId();
    if (typeof id !== 'string' || id.length === 0) {
      throw new ConfigError('id', 'expected a non-empty session id');
    }
    if (options.title !== undefined && typeof options.title !== 'string') {
      throw new ConfigError('title', 'expected a string');
    }
    const now = this.#hooks.now();
    return await this.#write((db) => insertSession(db, id, options.title, now));
  }

  /** The session, or undefined. */
  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    return (await this.#read((db) => sessionInfos(db, sessionId)))[0];
  }

  /** Every session, most recently updated first. */
  async listSessions(): Promise<SessionInfo[]> {
    return await this.#read((db) => sessionInfos(db));
  }

  /** Deletes a session and the message bodies no other session uses, then frees their pages. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#write((db) => removeSession(db, sessionId));
    await this.#backend.reclaimSpace();
  }

  /** Loads a branch (default: current) with its full history, in one snapshot. */
  async load(sessionId: string, branch?: string): Promise<SessionState> {
    return await this.#read(async (db) => {
      const session = await requireSession(db, sessionId);
      const row = await requireBranch(db, session, branch ?? session.current_branch);
      return await loadState(db, session, row);
    });
  }

  /**
   * Appends a turn as one checkpoint; `SessionConflictError` when the branch head is no longer
   * `expectedHead`. A retry of a commit that already landed (the head is the very checkpoint this
   * turn on `expectedHead` produces) returns that checkpoint instead of failing.
   */
  async commit(
    sessionId: string,
    turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta },
    options: CommitOptions,
  ): Promise<Checkpoint> {
    const prepared = prepareTurn(sessionId, turn, options?.expectedHead, options?.branch);
    const now = this.#hooks.now();
    return await this.#write((db) => commitTurn(db, prepared, now));
  }

  /** The checkpoints of a branch (default: current), root first. */
  async listCheckpoints(sessionId: string, branch?: string): Promise<Checkpoint[]> {
    return await this.#read(async (db) => {
      const session = await requireSession(db, sessionId);
      const row = await requireBranch(db, session, branch ?? session.current_branch);
      return (await loadChain(db, session.id, row.head_seq)).checkpoints;
    });
  }

  /** The branches of a session, by name. */
  async listBranches(sessionId: string): Promise<BranchInfo[]> {
    return await this.#read(async (db) => {
      const session = await requireSession(db, sessionId);
      return (await branchRows(db, session.seq)).map((row) => ({
        name: row.name,
        head: row.head_id === null ? null : toHex(row.head_id),
        turns: row.head_turn ?? 0,
        updatedAt: row.updated_at,
      }));
    });
  }

  /** Starts `newBranch` at a checkpoint of the session (null: empty) and makes it current. */
  async rewind(
    sessionId: string,
    checkpointId: string | null,
    newBranch: string,
  ): Promise<SessionState> {
    checkBranchName(newBranch, 'newBranch');
    return await this.#switch(sessionId, newBranch, async (db, session) => {
      const at = checkpointId === null ? null : await requireCheckpoint(db, session, checkpointId);
      return await startBranch(db, session, newBranch, at, this.#hooks.now());
    });
  }

  /** Starts `newBranch` at the head of `fromBranch` (default: current) and makes it current. */
  async fork(sessionId: string, newBranch: string, fromBranch?: string): Promise<SessionState> {
    checkBranchName(newBranch, 'newBranch');
    return await this.#switch(sessionId, newBranch, async (db, session) => {
      const at = await headOf(db, session, fromBranch ?? session.current_branch);
      return await startBranch(db, session, newBranch, at, this.#hooks.now());
    });
  }

  /** Makes an existing branch current. */
  async switchBranch(sessionId: string, branch: string): Promise<SessionState> {
    return await this.#switch(sessionId, branch, async (db, session) => {
      await requireBranch(db, session, branch);
      return await makeCurrent(db, session, branch, this.#hooks.now());
    });
  }

  #switch(
    sessionId: string,
    branch: string,
    change: (db: Kysely<StoreDatabase>, session: SessionRow) => Promise<SessionRow>,
  ): Promise<SessionState> {
    return this.#write(async (db) => {
      const session = await change(db, await requireSession(db, sessionId));
      return await loadState(db, session, await requireBranch(db, session, branch));
    });
  }

  /**
   * Durably journals the assistant message whose calls are about to run, as a compare-and-set on
   * the branch head: `SessionConflictError` when `baseHead` is not the head or another writer's
   * pending turn sits on it; the same assistant again is a no-op.
   */
  async journalTurn(
    sessionId: string,
    branch: string,
    baseHead: string | null,
    assistant: Message,
  ): Promise<void> {
    const callIds = checkJournaledAssistant(assistant);
    const now = this.#hooks.now();
    const target = { sessionId, branch, baseHead };
    await this.#write((db) => writePendingTurn(db, target, assistant, callIds, now));
  }

  /**
   * Durably records that a call of the pending turn is about to run; `SessionConflictError` when
   * the pending turn has no such call (another writer replaced or cleared it).
   */
  async journalStart(sessionId: string, branch: string, callId: string): Promise<void> {
    checkCallId(callId);
    await this.#write((db) => markCall(db, { sessionId, branch }, callId, undefined));
  }

  /** Durably records a call's result; `SessionConflictError` like `journalStart`. */
  async journalEnd(
    sessionId: string,
    branch: string,
    callId: string,
    result: ToolResultBlock,
  ): Promise<void> {
    checkCallId(callId);
    checkJournaledResult(callId, result);
    await this.#write((db) => markCall(db, { sessionId, branch }, callId, result));
  }

  /** The branch's pending turn, or undefined. */
  async pendingTurn(sessionId: string, branch: string): Promise<PendingTurn | undefined> {
    return await this.#read(async (db) =>
      readPendingTurn(db, await requireSession(db, sessionId), branch),
    );
  }

  /** Throws a `ConfigError` once the store is closed (for engine-specific methods). */
  protected assertOpen(): void {
    this.#assertOpen();
  }

  /** Closes the connection; later calls throw a `ConfigError`. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#backend.close();
  }
}
