import type { Message, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';
import type { AskedQuestion } from './tool.js';

/** The branch a new session starts on. */
export const DEFAULT_BRANCH = 'main';

/** A session as listed. */
export interface SessionInfo {
  /** Session id. */
  readonly id: string;
  /** Human title (the first prompt, by default). */
  readonly title?: string;
  /** Creation time, ms since epoch. */
  readonly createdAt: number;
  /** Last commit time, ms since epoch. */
  readonly updatedAt: number;
  /** The current branch: where `load` and `commit` go when no branch is named. */
  readonly branch: string;
  /** Committed turns on the current branch. */
  readonly turns: number;
}

/** A branch as listed. */
export interface BranchInfo {
  /** Branch name, unique within its session. */
  readonly name: string;
  /** Head checkpoint id, or null for an empty branch. */
  readonly head: string | null;
  /** Committed turns from the root to the head. */
  readonly turns: number;
  /** When the head last moved, ms since epoch. */
  readonly updatedAt: number;
}

/** Metadata stored with a checkpoint. */
export interface CheckpointMeta {
  /** Usage of the turn. */
  readonly usage?: Usage;
  /** Cost of the turn in USD. */
  readonly costUsd?: number;
  /** Model that answered. */
  readonly model?: string;
  /** Free-form JSON records: compactions (ids folded away, tokens, stage), the run id, … */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** An immutable snapshot: a parent plus the messages this turn appended. */
export interface Checkpoint {
  /** Content-derived id (a hash of the parent id and the appended messages). */
  readonly id: string;
  /** The session. */
  readonly sessionId: string;
  /** The previous checkpoint, or null for the first. */
  readonly parentId: string | null;
  /** Number of turns from the root to here (1 for the first). */
  readonly turn: number;
  /** Commit time, ms since epoch. */
  readonly createdAt: number;
  /** Ids of the messages appended by this checkpoint, in order. */
  readonly messageIds: readonly string[];
  /** Usage, cost, model and other records. */
  readonly meta: CheckpointMeta;
}

/** A branch head and the history it holds. */
export interface SessionState {
  /** The session. */
  readonly sessionId: string;
  /** The branch loaded. */
  readonly branch: string;
  /** Head checkpoint id, or null for an empty branch. Pass it as `expectedHead` to commit. */
  readonly head: string | null;
  /** The full history from the root to the head, exactly as committed. */
  readonly messages: readonly Message[];
  /** The checkpoints from the root to the head (for usage, compaction records, …). */
  readonly checkpoints: readonly Checkpoint[];
}

/** A journaled tool call: written before it runs, completed when it finishes. */
export interface ToolCallJournalEntry {
  /** The call. */
  readonly call: ToolUseBlock;
  /** Whether it started (journalStart was written); false for a call that never started. */
  readonly started: boolean;
  /** The result, once finished; absent for a call that never finished. */
  readonly result?: ToolResultBlock;
  /**
   * The question the call stopped on (`journalQuestion`) and waits to have answered; absent once
   * answered (`journalAnswer`) or finished (`journalEnd`), or when it never asked. Such a call is
   * `started` and has no result.
   */
  readonly question?: AskedQuestion;
  /** The answers the call runs (or ran) again with (`journalAnswer`), oldest first. */
  readonly answers?: readonly unknown[];
}

/**
 * A turn in flight: its assistant message is journaled before any of its tools run, so a crash
 * before the commit leaves enough to resume without running a side effect twice.
 */
export interface PendingTurn {
  /** The head the turn builds on; a pending turn whose base is no longer the head is stale. */
  readonly baseHead: string | null;
  /** The assistant message whose tool calls are running. */
  readonly assistant: Message;
  /** Its calls, in the message's order, with what the journal knows of each. */
  readonly calls: readonly ToolCallJournalEntry[];
}

/** Where a commit goes and what it expects to find there. */
export interface CommitOptions {
  /**
   * The head the writer loaded (`SessionState.head`); the commit fails with
   * `SessionConflictError` if the branch head is anything else now.
   */
  readonly expectedHead: string | null;
  /** The branch (default: the session's current branch). */
  readonly branch?: string;
  /**
   * What to do with a pending turn journaled on the expected head (a turn whose tools were
   * running, or that waits on a person): `'clear'` it, as every commit does by default, or
   * `'refuse'` the commit with a `SessionConflictError` whose `expectedHead` and `actualHead`
   * are both that head, so the writer finishes the turn first. A stale pending turn (built on
   * another head) is cleared either way. `'refuse'` lets a writer commit a new prompt without
   * reading the journal first: the store checks inside the commit.
   */
  readonly pendingTurn?: 'clear' | 'refuse';
}

/**
 * Persistence of conversations as content-addressed checkpoints with branches: the port
 * `@mh/session-sql` implements. Messages are stored once by content hash, so storage grows with
 * new content, not with history length. Writes are optimistic: every write whose meaning depends on
 * a head (`commit`, `journalTurn`, `journalStart`, `journalEnd`) checks it atomically, inside the
 * store's write transaction or lock, and fails with `SessionConflictError` (never a raw error) when
 * another writer got there first. Unknown sessions, branches and checkpoints, and arguments of the
 * wrong type, are `ConfigError`s naming the id or field. `@mh/conformance` checks all of this.
 */
export interface SessionStore {
  /**
   * True when `commit` honours `pendingTurn: 'refuse'`. A store written before that option ignores
   * it and clears the pending turn, so an Agent reads the journal before committing a prompt
   * unless this is true.
   */
  readonly refusesPendingTurn?: boolean;
  /** Creates a session (with a new id unless one is given) on an empty `main` branch. */
  createSession(options?: { readonly id?: string; readonly title?: string }): Promise<SessionInfo>;
  /** The session, or undefined when there is none with this id. */
  getSession(sessionId: string): Promise<SessionInfo | undefined>;
  /** Lists sessions, most recently updated first. */
  listSessions(): Promise<SessionInfo[]>;
  /** Deletes a session and everything only it references. */
  deleteSession(sessionId: string): Promise<void>;
  /** Loads a branch head (the session's current branch by default). */
  load(sessionId: string, branch?: string): Promise<SessionState>;
  /**
   * Appends one committed turn (the assistant message and all its tool results, or a user prompt
   * with them) as a new checkpoint and moves the branch head to it, atomically.
   */
  commit(
    sessionId: string,
    turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta },
    options: CommitOptions,
  ): Promise<Checkpoint>;
  /**
   * Appends several turns in order, one checkpoint each, in one atomic and durable write: the
   * first on `expectedHead`, each next on the one before; all land or none. The same checks,
   * conflicts and `pendingTurn` handling as `commit` (which a retry that already landed returns
   * alike), and the same checkpoints as committing the turns one by one. Optional: a writer
   * without it commits the turns one by one.
   */
  commitTurns?(
    sessionId: string,
    turns: readonly { readonly messages: readonly Message[]; readonly meta: CheckpointMeta }[],
    options: CommitOptions,
  ): Promise<Checkpoint[]>;
  /** The checkpoints of a branch, root first. */
  listCheckpoints(sessionId: string, branch?: string): Promise<Checkpoint[]>;
  /** The branches of a session. */
  listBranches(sessionId: string): Promise<BranchInfo[]>;
  /**
   * Starts `newBranch` at `checkpointId` (null: empty) and makes it the current branch; the old
   * branch is left exactly as it was. Fails if `newBranch` exists.
   */
  rewind(sessionId: string, checkpointId: string | null, newBranch: string): Promise<SessionState>;
  /** Starts `newBranch` at the head of `fromBranch` (default: current) and makes it current. */
  fork(sessionId: string, newBranch: string, fromBranch?: string): Promise<SessionState>;
  /** Makes an existing branch the current one. */
  switchBranch(sessionId: string, branch: string): Promise<SessionState>;
  /**
   * Journals, durably, an assistant message whose tool calls are about to run, on top of
   * `baseHead`, with every call not started. The next commit on the branch clears it. Atomically:
   * - `baseHead` is not the branch's head now → `SessionConflictError` (a stale writer must not
   *   replace the live writer's journal);
   * - the branch already has a pending turn on this head with another assistant message id →
   *   `SessionConflictError` (another live writer is running it: an Agent recovers or clears a
   *   pending turn before it journals a new one);
   * - the same assistant message id again → nothing changes (the started and finished calls are
   *   kept);
   * - a pending turn whose base is no longer the head (stale, left by a crash) is replaced.
   *
   * An unknown `baseHead` is a `ConfigError`.
   */
  journalTurn(
    sessionId: string,
    branch: string,
    baseHead: string | null,
    assistant: Message,
  ): Promise<void>;
  /**
   * Records, durably, that a call of the pending turn is about to run: a claim, made once. A call
   * already started (by another writer finishing the same turn, or before a crash) is a
   * `SessionConflictError`, so two writers never both run it; recovery re-runs an idempotent
   * started call without starting it again. A `callId` that is not in the branch's pending turn
   * (another writer replaced or cleared it, or there is none) is a `SessionConflictError` too; a
   * `callId` that is not a string is a `ConfigError`.
   */
  journalStart(sessionId: string, branch: string, callId: string): Promise<void>;
  /**
   * Records, durably, that a call of the pending turn finished with `result`. The same
   * `SessionConflictError` as `journalStart` for a call not in the pending turn; a `result` that
   * is not a tool result answering `callId` is a `ConfigError`.
   */
  journalEnd(
    sessionId: string,
    branch: string,
    callId: string,
    result: ToolResultBlock,
  ): Promise<void>;
  /**
   * Records, durably, that a call of the pending turn stopped on `question` (its tool called
   * `ToolRunContext.interrupt` without an answer): the call is held, started and without a result,
   * until `journalAnswer` claims it. Replaces an earlier question of the call. A call not in the
   * pending turn, or one that already has a result, is a `SessionConflictError`; a malformed
   * `question` (not `{ question: string, schema?: object, answers: JSON[] }`) is a `ConfigError`
   * naming the field.
   */
  journalQuestion(
    sessionId: string,
    branch: string,
    callId: string,
    question: AskedQuestion,
  ): Promise<void>;
  /**
   * Claims, durably and once, a call held on a question to run it again with `answers` (its
   * earlier answers plus the new one): `answers.length` must be one more than the question's
   * `answers.length`. The question is cleared and `answers` kept with the call. A call that does
   * not wait on a question, or whose question another writer answered first (the count differs),
   * is a `SessionConflictError`, so two resumes never both run it; `answers` that are not a JSON
   * array is a `ConfigError`.
   */
  journalAnswer(
    sessionId: string,
    branch: string,
    callId: string,
    answers: readonly unknown[],
  ): Promise<void>;
  /** The branch's pending turn (a crash between its tools and its commit leaves it), if any. */
  pendingTurn(sessionId: string, branch: string): Promise<PendingTurn | undefined>;
  /** Releases the store's resources; later calls fail. */
  close(): Promise<void>;
}
