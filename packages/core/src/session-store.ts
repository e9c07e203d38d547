import type { Message, ToolResultBlock, ToolUseBlock } from './messages.js';
import type { Usage } from './usage.js';

/** A session as listed. */
export interface SessionInfo {
  /** Session id. */
  readonly id: string;
  /** Human title (first prompt, by default). */
  readonly title?: string;
  /** Creation time, ms since epoch. */
  readonly createdAt: number;
  /** Last commit time, ms since epoch. */
  readonly updatedAt: number;
  /** The branch new turns go to. */
  readonly branch: string;
  /** Committed turns on that branch. */
  readonly turns: number;
}

/** Metadata stored with a checkpoint. */
export interface CheckpointMeta {
  /** Usage of the turn. */
  readonly usage?: Usage;
  /** Cost of the turn in USD. */
  readonly costUsd?: number;
  /** Model that answered. */
  readonly model?: string;
  /** Free-form records (compactions, run id, …). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** An immutable snapshot: a parent plus the messages this turn appended. */
export interface Checkpoint {
  /** Content-derived id. */
  readonly id: string;
  /** The session. */
  readonly sessionId: string;
  /** The previous checkpoint, or null for the first. */
  readonly parentId: string | null;
  /** Number of turns from the root to here (1 for the first). */
  readonly turn: number;
  /** Commit time, ms since epoch. */
  readonly createdAt: number;
  /** Ids of the messages appended by this checkpoint. */
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
  /** The full history from the root to the head. */
  readonly messages: readonly Message[];
}

/** A journaled tool call (written before it runs, completed when it finishes). */
export interface ToolCallJournalEntry {
  /** The call. */
  readonly call: ToolUseBlock;
  /** Whether running the call again is safe. */
  readonly idempotent: boolean;
  /** The result, once finished; absent for a call that started and never finished. */
  readonly result?: ToolResultBlock;
}

/**
 * Persistence of conversations as content-addressed checkpoints with branches. Writes are
 * optimistic: `commit` fails with `SessionConflictError` when the head moved since `load`.
 */
export interface SessionStore {
  /** Creates a session (with a new id unless one is given). */
  createSession(options?: { readonly id?: string; readonly title?: string }): Promise<SessionInfo>;
  /** Lists sessions, most recently updated first. */
  listSessions(): Promise<SessionInfo[]>;
  /** Deletes a session and everything only it references. */
  deleteSession(sessionId: string): Promise<void>;
  /** Loads a branch head (the session's current branch by default). */
  load(sessionId: string, branch?: string): Promise<SessionState>;
  /** Appends a committed turn; throws `SessionConflictError` if the head is not `expectedHead`. */
  commit(
    sessionId: string,
    turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta },
    options: { readonly expectedHead: string | null; readonly branch?: string },
  ): Promise<Checkpoint>;
  /** The checkpoints of a branch, root first. */
  listCheckpoints(sessionId: string, branch?: string): Promise<Checkpoint[]>;
  /** Starts `newBranch` at an older checkpoint and makes it current; the old branch stays. */
  rewind(sessionId: string, checkpointId: string, newBranch: string): Promise<SessionState>;
  /** Records that a tool call is about to run. */
  journalStart(sessionId: string, entry: ToolCallJournalEntry): Promise<void>;
  /** Records that a tool call finished. */
  journalEnd(sessionId: string, callId: string, result: ToolResultBlock): Promise<void>;
  /** Journaled calls not yet covered by a committed checkpoint. */
  pendingToolCalls(sessionId: string): Promise<ToolCallJournalEntry[]>;
  /** Releases the store's resources. */
  close(): Promise<void>;
}
