import type { Generated } from 'kysely';

/**
 * A session. `seq` is an internal surrogate key: every other table refers to sessions, messages
 * and checkpoints by these small integers, which keeps per-turn storage close to the content size
 * (a 32-byte hash repeated in every reference would not).
 */
export interface SessionsTable {
  /** Internal key. */
  seq: Generated<number>;
  /** The public session id. */
  id: string;
  /** Human title, or null. */
  title: string | null;
  /** Creation time, ms since epoch. */
  created_at: number;
  /** Last change of a head or of the current branch, ms since epoch. */
  updated_at: number;
  /** Name of the current branch. */
  current_branch: string;
}

/** One message body, stored once however many checkpoints and branches refer to it. */
export interface MessagesTable {
  /** Internal key. */
  seq: Generated<number>;
  /** sha-256 of the message's canonical JSON (32 bytes), unique: the content address. */
  hash: Uint8Array;
  /** How `body` is encoded: 0 plain UTF-8 JSON, 1 deflated (`message-codec.ts`). */
  codec: number;
  /** The message as canonical JSON (sorted keys, no whitespace), encoded per `codec`. */
  body: Uint8Array;
}

/** An immutable checkpoint: a parent pointer plus the messages its turn appended. */
export interface CheckpointsTable {
  /** Internal key. */
  seq: Generated<number>;
  /** The public, content-derived id (32-byte sha-256), unique. */
  id: Uint8Array;
  /** The session it belongs to. */
  session_seq: number;
  /** The previous checkpoint, or null for a first turn. */
  parent_seq: number | null;
  /** Turns from the root to here (1 for the first). */
  turn: number;
  /** Commit time, ms since epoch. */
  created_at: number;
  /** `CheckpointMeta` as canonical JSON. */
  meta: string;
}

/** The ordered messages a checkpoint appends. */
export interface CheckpointMessagesTable {
  /** The checkpoint. */
  checkpoint_seq: number;
  /** 0-based position within the turn. */
  position: number;
  /** The message. */
  message_seq: number;
}

/** A named head within a session. */
export interface BranchesTable {
  /** The session. */
  session_seq: number;
  /** Branch name, unique within the session. */
  name: string;
  /** Head checkpoint, or null for an empty branch. */
  head_seq: number | null;
  /** When the head last moved, ms since epoch. */
  updated_at: number;
}

/** A turn in flight on a branch: at most one per branch, cleared by the branch's next commit. */
export interface PendingTurnsTable {
  /** The session. */
  session_seq: number;
  /** The branch. */
  branch: string;
  /** The head the turn builds on, or null. */
  base_seq: number | null;
  /** The assistant message as canonical JSON. */
  assistant: string;
  /** When it was journaled, ms since epoch. */
  created_at: number;
}

/** One tool call of a pending turn. */
export interface PendingCallsTable {
  /** The session. */
  session_seq: number;
  /** The branch. */
  branch: string;
  /** The `tool_use` id. */
  call_id: string;
  /** 0-based order of the call in the assistant message. */
  position: number;
  /** 1 once `journalStart` was written, else 0. */
  started: number;
  /** The `ToolResultBlock` as canonical JSON once finished, else null. */
  result: string | null;
  /** The question it waits on (`{ question, schema?, answers }`) as canonical JSON, else null. */
  question: string | null;
  /** The answers it runs again with, as a canonical JSON array, else null. */
  answers: string | null;
}

/** The store's tables, for kysely. */
export interface StoreDatabase {
  sessions: SessionsTable;
  messages: MessagesTable;
  checkpoints: CheckpointsTable;
  checkpoint_messages: CheckpointMessagesTable;
  branches: BranchesTable;
  pending_turns: PendingTurnsTable;
  pending_calls: PendingCallsTable;
}
