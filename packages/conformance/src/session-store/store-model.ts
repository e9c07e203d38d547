import {
  type AskedQuestion,
  type Checkpoint,
  type CheckpointMeta,
  DEFAULT_BRANCH,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
  toolUsesOf,
} from '@mh/core';

/** A committed checkpoint as the model remembers it. */
export interface ModelCheckpoint {
  readonly id: string;
  readonly parentId: string | null;
  readonly turn: number;
  readonly messages: readonly Message[];
  readonly meta: CheckpointMeta;
}

/** A journaled call of a pending turn. */
export interface ModelCall {
  readonly call: ToolUseBlock;
  started: boolean;
  result?: ToolResultBlock;
  /** The question it is held on (`journalQuestion`), until answered or finished. */
  question?: AskedQuestion;
  /** The answers it was claimed with (`journalAnswer`). */
  answers?: readonly unknown[];
}

/** The turn in flight on a branch. */
export interface ModelPending {
  readonly baseHead: string | null;
  readonly assistant: Message;
  readonly calls: ModelCall[];
}

/** The last commit that landed on a branch, for the retried-commit command. */
export interface LastCommit {
  readonly turn: { readonly messages: readonly Message[]; readonly meta: CheckpointMeta };
  readonly expectedHead: string | null;
  readonly id: string;
}

/** The last `commitTurns` that landed on a branch, for its retry. */
export interface LastTurns {
  readonly turns: readonly LastCommit['turn'][];
  readonly expectedHead: string | null;
  readonly refuse: boolean;
  /** What the store returned, one checkpoint a turn: a retry must return the same. */
  readonly checkpoints: readonly Checkpoint[];
}

/** A branch: a head, at most one pending turn. */
export interface ModelBranch {
  head: string | null;
  pending: ModelPending | undefined;
  lastCommit: LastCommit | undefined;
  lastTurns: LastTurns | undefined;
}

const emptyBranch = (head: string | null): ModelBranch => ({
  head,
  pending: undefined,
  lastCommit: undefined,
  lastTurns: undefined,
});

/** A session of the reference model. */
export class ModelSession {
  readonly id: string;
  readonly title: string | undefined;
  current: string = DEFAULT_BRANCH;
  readonly branches: Map<string, ModelBranch> = new Map();
  /** Every checkpoint committed in the session, on any branch. */
  readonly checkpoints: Map<string, ModelCheckpoint> = new Map();

  constructor(id: string, title: string | undefined) {
    this.id = id;
    this.title = title;
    this.branches.set(DEFAULT_BRANCH, emptyBranch(null));
  }

  /** The branch, which must exist. */
  branch(name: string): ModelBranch {
    const branch = this.branches.get(name);
    if (!branch) throw new Error(`model: no branch ${name} in ${this.id}`);
    return branch;
  }

  /** The checkpoints from the root to `head`, root first. */
  chain(head: string | null): ModelCheckpoint[] {
    const chain: ModelCheckpoint[] = [];
    for (let id = head; id !== null; ) {
      const checkpoint = this.checkpoints.get(id);
      if (!checkpoint) throw new Error(`model: unknown checkpoint ${id}`);
      chain.unshift(checkpoint);
      id = checkpoint.parentId;
    }
    return chain;
  }

  /** Branch names, sorted. */
  branchNames(): string[] {
    return [...this.branches.keys()].sort();
  }

  /** Starts `name` at `head` (no pending turn) and makes it current. */
  startBranch(name: string, head: string | null): void {
    this.branches.set(name, emptyBranch(head));
    this.current = name;
  }
}

/** Starts a pending turn of `assistant` on `baseHead`, every call not started. */
export function pendingOf(baseHead: string | null, assistant: Message): ModelPending {
  return {
    baseHead,
    assistant,
    calls: toolUsesOf(assistant).map((call) => ({ call, started: false })),
  };
}

/**
 * The reference model of one generated sequence: plain maps of sessions, branches, checkpoints and
 * pending turns. Ids it mints carry the sequence's prefix, so sequences can share one store.
 */
export class StoreModel {
  readonly prefix: string;
  readonly sessions: Map<string, ModelSession> = new Map();
  /** Sessions the sequence deleted: the store must not know them any more. */
  readonly deleted: Set<string> = new Set();
  #counter = 0;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** A new id, unique in the run: `<prefix>-<kind><n>`. */
  fresh(kind: string): string {
    this.#counter += 1;
    return `${this.prefix}-${kind}${this.#counter}`;
  }

  /** The `pick`-th live session (modulo their number), or undefined when there is none. */
  pickSession(pick: number): ModelSession | undefined {
    const live = [...this.sessions.values()];
    return live.length === 0 ? undefined : live[pick % live.length];
  }
}

/** The `pick`-th element of `items` (modulo their number), or undefined when empty. */
export function pickOf<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}
