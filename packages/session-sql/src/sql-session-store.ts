import {
  type AskedQuestion,
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
import { assertOptions, checkAnswers, checkAskedQuestion } from '@mh/core/internal';
import { checkBranchName } from './branch-ops.js';
import { type PreparedTurn, prepareTurn } from './commit-turn.js';
import { toHex } from './content-hash.js';
import type { OpArgs, OpResult, StoreOp, StoreRunner } from './store-ops.js';
import { checkCallId, checkJournaledAssistant, checkJournaledResult } from './turn-journal.js';

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
  /** `commit` honours `pendingTurn: 'refuse'`. */
  readonly refusesPendingTurn = true;
  readonly #runner: StoreRunner;
  readonly #hooks: SessionStoreHooks;
  #closed = false;

  /**
   * Wraps an open engine's operations; `openSqliteStore` and `openPostgresStore` are the ways to
   * get one.
   */
  constructor(runner: StoreRunner, hooks: Partial<SessionStoreHooks> = {}) {
    this.#runner = runner;
    this.#hooks = { ...defaultHooks, ...hooks };
  }

  #run<K extends StoreOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    this.#assertOpen();
    return this.#runner.run(op, args);
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
    return await this.#run('createSession', { id, title: options.title, now });
  }

  /** The session, or undefined. */
  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    return await this.#run('getSession', { sessionId });
  }

  /** Every session, most recently updated first. */
  async listSessions(): Promise<SessionInfo[]> {
    return await this.#run('listSessions', {});
  }

  /** Deletes a session and the message bodies no other session uses, then frees their pages. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#run('deleteSession', { sessionId });
    await this.#runner.reclaimSpace();
  }

  /** Loads a branch (default: current) with its full history, in one snapshot. */
  async load(sessionId: string, branch?: string): Promise<SessionState> {
    return await this.#run('load', { sessionId, branch });
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
    const prepared = prepareTurn(
      sessionId,
      turn,
      options?.expectedHead,
      options?.branch,
      options?.pendingTurn,
    );
    return await this.#run('commit', { prepared, now: this.#hooks.now() });
  }

  /**
   * Appends `turns` in order, one checkpoint each, in one transaction (one fsync on SQLite): all
   * land or none. Each turn is checked as `commit` checks it, its errors named `turns[i].…`.
   */
  async commitTurns(
    sessionId: string,
    turns: readonly { readonly messages: readonly Message[]; readonly meta: CheckpointMeta }[],
    options: CommitOptions,
  ): Promise<Checkpoint[]> {
    if (!Array.isArray(turns) || turns.length === 0) {
      throw new ConfigError('turns', 'expected a non-empty array of turns');
    }
    const prepared: PreparedTurn[] = [];
    let head = options?.expectedHead;
    for (const [index, turn] of turns.entries()) {
      const pendingTurn = index === 0 ? options?.pendingTurn : 'clear';
      try {
        prepared.push(prepareTurn(sessionId, turn, head, options?.branch, pendingTurn));
      } catch (error) {
        // A turn's own fields are named by their place; the options' (expectedHead, …) as they are.
        const field = ConfigError.isInstance(error) ? error.field : '';
        if (!/^(messages|meta)\b/.test(field)) throw error;
        const problem = (error as Error).message.slice(field.length + 2);
        throw new ConfigError(`turns[${index}].${field}`, problem, { cause: error });
      }
      head = toHex((prepared.at(-1) as PreparedTurn).id);
    }
    return await this.#run('commitMany', { prepared, now: this.#hooks.now() });
  }

  /** The checkpoints of a branch (default: current), root first. */
  async listCheckpoints(sessionId: string, branch?: string): Promise<Checkpoint[]> {
    return await this.#run('listCheckpoints', { sessionId, branch });
  }

  /** The branches of a session, by name. */
  async listBranches(sessionId: string): Promise<BranchInfo[]> {
    return await this.#run('listBranches', { sessionId });
  }

  /** Starts `newBranch` at a checkpoint of the session (null: empty) and makes it current. */
  async rewind(
    sessionId: string,
    checkpointId: string | null,
    newBranch: string,
  ): Promise<SessionState> {
    checkBranchName(newBranch, 'newBranch');
    return await this.#run('rewind', {
      sessionId,
      checkpointId,
      newBranch,
      now: this.#hooks.now(),
    });
  }

  /** Starts `newBranch` at the head of `fromBranch` (default: current) and makes it current. */
  async fork(sessionId: string, newBranch: string, fromBranch?: string): Promise<SessionState> {
    checkBranchName(newBranch, 'newBranch');
    return await this.#run('fork', { sessionId, newBranch, fromBranch, now: this.#hooks.now() });
  }

  /** Makes an existing branch current. */
  async switchBranch(sessionId: string, branch: string): Promise<SessionState> {
    return await this.#run('switchBranch', { sessionId, branch, now: this.#hooks.now() });
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
    checkBranchName(branch, 'branch');
    const callIds = checkJournaledAssistant(assistant);
    const target = { sessionId, branch, baseHead };
    await this.#run('journalTurn', { target, assistant, callIds, now: this.#hooks.now() });
  }

  /**
   * Durably records that a call of the pending turn is about to run; `SessionConflictError` when
   * the pending turn has no such call (another writer replaced or cleared it).
   */
  async journalStart(sessionId: string, branch: string, callId: string): Promise<void> {
    checkBranchName(branch, 'branch');
    checkCallId(callId);
    await this.#run('markCall', { sessionId, branch, callId, result: undefined });
  }

  /** Durably records a call's result; `SessionConflictError` like `journalStart`. */
  async journalEnd(
    sessionId: string,
    branch: string,
    callId: string,
    result: ToolResultBlock,
  ): Promise<void> {
    checkBranchName(branch, 'branch');
    checkCallId(callId);
    checkJournaledResult(callId, result);
    await this.#run('markCall', { sessionId, branch, callId, result });
  }

  /**
   * Durably holds a call of the pending turn on the question its tool asked;
   * `SessionConflictError` when the call is not in the pending turn or already finished.
   */
  async journalQuestion(
    sessionId: string,
    branch: string,
    callId: string,
    question: AskedQuestion,
  ): Promise<void> {
    checkBranchName(branch, 'branch');
    checkCallId(callId);
    const checked = checkAskedQuestion(question);
    await this.#run('holdOnQuestion', { sessionId, branch, callId, question: checked });
  }

  /**
   * Durably claims a call held on a question to run it again with `answers`, once;
   * `SessionConflictError` when another writer answered it first.
   */
  async journalAnswer(
    sessionId: string,
    branch: string,
    callId: string,
    answers: readonly unknown[],
  ): Promise<void> {
    checkBranchName(branch, 'branch');
    checkCallId(callId);
    const checked = checkAnswers(answers);
    await this.#run('claimAnswered', { sessionId, branch, callId, answers: checked });
  }

  /** The branch's pending turn, or undefined. */
  async pendingTurn(sessionId: string, branch: string): Promise<PendingTurn | undefined> {
    checkBranchName(branch, 'branch');
    return await this.#run('pendingTurn', { sessionId, branch });
  }

  /** Throws a `ConfigError` once the store is closed (for engine-specific methods). */
  protected assertOpen(): void {
    this.#assertOpen();
  }

  /** Closes the connection; later calls throw a `ConfigError`. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#runner.close();
  }
}
