import {
  type CheckpointMeta,
  type CommitOptions,
  type CompactionPatch,
  ConfigError,
  type ContextMeterState,
  compactionPatches,
  DEFAULT_BRANCH,
  type LoopHooks,
  type Message,
  type PendingTurn,
  type SessionState,
  type SessionStore,
  type ToolResultBlock,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { BOUNDARY_KEY, rebuildView, storedBoundaries, withNewest } from './session-view.js';

/** Where an agent's conversation persists. */
export interface AgentSession {
  /** The store, e.g. `await openSqliteStore('mh.db')`. */
  readonly store: SessionStore;
  /** The session id; created on first use when it does not exist. */
  readonly id: string;
  /** The branch to work on (default: the session's current branch). */
  readonly branch?: string;
  /** Title for a new session (default: the first prompt). */
  readonly title?: string;
}

const SESSION_KEYS: readonly string[] = ['store', 'id', 'branch', 'title'];

/**
 * An agent's link to its session: it loads the branch, commits each turn with optimistic
 * concurrency, and journals tool calls so a crash can be resumed safely.
 */
export class SessionBinding {
  readonly #session: AgentSession;
  #branch: string;
  #head: string | null = null;
  /**
   * Ids of the view's messages the store already holds: committed messages, and the summaries
   * and drop notes of compactions (stored as patches). The view and the store are kept in step by
   * these identities, never by counts: whatever rewrites the view (a reset, a compaction, a run
   * refused before it started), what is new is exactly the messages the store does not know.
   */
  #known = new Set<string>();
  #exists = false;
  /** Whether a branch was adopted (loaded or moved to): reloads go back to it. */
  #adopted = false;
  /** Compactions made since the last commit; stored with the next checkpoint. */
  #pendingPatches: CompactionPatch[] = [];
  /**
   * A tool turn held back to be committed with the turn after it, in one durable write
   * (`SessionStore.commitTurns`). Its calls stay in the journal meanwhile, so a crash resumes it
   * as it resumes a turn whose tools were running. Any other write of the binding commits it first.
   */
  #heldTurn: ReadyTurn | undefined;
  #context: { states: ContextMeterState[]; messages: readonly Message[] } = {
    states: [],
    messages: [],
  };
  #boundaries: string[] = [];
  /**
   * The fence boundary of what this agent commits (undefined: fencing is off),
   * recorded with each checkpoint so the next agent on the session can fence with the same one.
   */
  boundary: string | undefined;

  /**
   * Whether a call of this tool may run again after a crash (idempotent, or it only reads): it is
   * not claimed or journaled call by call. The journaled turn still holds it, so recovery runs it
   * again and the model is never asked for the turn twice.
   */
  readonly #mayRepeat: (toolName: string) => boolean;
  /** Whether a tool turn may wait for the turn after it (see `#heldTurn`). */
  readonly #holdToolTurns: boolean;

  constructor(
    session: AgentSession,
    mayRepeat: (toolName: string) => boolean = () => false,
    { holdToolTurns = true }: { readonly holdToolTurns?: boolean } = {},
  ) {
    if (session === null || typeof session !== 'object')
      throw new ConfigError('session', 'expected an object');
    // A misspelt `branch` would otherwise silently work on (and commit to) the current branch.
    assertOptions(session, SESSION_KEYS, 'session');
    if (typeof session.store?.commit !== 'function')
      throw new ConfigError('session.store', 'expected a SessionStore');
    if (typeof session.id !== 'string' || session.id.trim() === '') {
      throw new ConfigError('session.id', 'expected a non-empty string');
    }
    for (const key of ['branch', 'title'] as const) {
      const value = session[key];
      if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
        throw new ConfigError(`session.${key}`, 'expected a non-empty string');
    }
    this.#session = session;
    this.#branch = session.branch ?? DEFAULT_BRANCH;
    this.#mayRepeat = mayRepeat;
    this.#holdToolTurns = holdToolTurns;
  }

  /** The session id. */
  get id(): string {
    return this.#session.id;
  }

  /** Whether the store's `commit` honours `pendingTurn: 'refuse'` (it says so). */
  get refusesPendingTurn(): boolean {
    return this.#session.store.refusesPendingTurn === true;
  }

  /** The branch in use. */
  get branch(): string {
    return this.#branch;
  }

  /** Loads the committed history ([] for a session not created yet: the first commit creates it). */
  async load(): Promise<Message[]> {
    const { store, id } = this.#session;
    const info = await store.getSession(id);
    this.#exists = info !== undefined;
    if (!info)
      return this.adopt({
        sessionId: id,
        branch: this.#branch,
        head: null,
        messages: [],
        checkpoints: [],
      });
    // Once the binding moved (a reset, rewind, fork or switch), it reloads where it moved to.
    const branch = this.#adopted ? this.#branch : (this.#session.branch ?? info.branch);
    return this.adopt(await store.load(id, branch));
  }

  /** Creates the session on first use, titled by `title` unless the options gave one. */
  async ensureCreated(title: string | undefined): Promise<void> {
    if (this.#exists) return;
    const { store, id } = this.#session;
    if (!(await store.getSession(id))) {
      try {
        await store.createSession({ id, title: this.#session.title ?? title });
      } catch (error) {
        // Another agent created it between the check and the create: the session exists.
        if (!(await store.getSession(id))) throw error;
      }
    }
    this.#exists = true;
  }

  /** Whether the session exists in the store (a new one is created by its first commit). */
  get exists(): boolean {
    return this.#exists;
  }

  /** The session's store. */
  get store(): SessionStore {
    return this.#session.store;
  }

  /**
   * Moves to another branch (after a rewind, fork or switch) and returns its history as the agent
   * works with it: the stored messages with the branch's compactions applied in order.
   */
  adopt(state: SessionState): Message[] {
    this.#adopted = true;
    this.#branch = state.branch;
    this.#head = state.head;
    this.#pendingPatches = [];
    this.#heldTurn = undefined;
    const view = rebuildView(state);
    this.#context = view.context;
    this.#boundaries = storedBoundaries(state);
    this.#known = new Set(view.messages.map((message) => message.id));
    return view.messages;
  }

  /**
   * The stored context measurements of the branch (oldest first) and the history the last one
   * measured, so a resumed agent sizes its context from real usage instead of guessing.
   */
  get context(): {
    readonly states: readonly ContextMeterState[];
    readonly messages: readonly Message[];
  } {
    return this.#context;
  }

  /**
   * The boundaries the branch's tool results were fenced with, as its checkpoints recorded them
   * (each once, ordered by its newest use: the last is the newest). Empty for a branch committed
   * without fencing or before boundaries were recorded.
   */
  get boundaries(): readonly string[] {
    return this.#boundaries;
  }

  /**
   * Starts the conversation over on a new empty branch, named `reset-1`, `reset-2`, … (the first
   * free one), and makes it current; the branch in use stays as it was. Another writer taking the
   * same name first makes it try the next one.
   */
  async startOver(): Promise<Message[]> {
    await this.#release();
    const { store, id } = this.#session;
    const taken = new Set((await store.listBranches(id)).map((branch) => branch.name));
    let n = 1;
    for (let attempt = 0; ; attempt++) {
      while (taken.has(`reset-${n}`)) n++;
      try {
        return this.adopt(await store.rewind(id, null, `reset-${n}`));
      } catch (error) {
        if (attempt >= 4 || !ConfigError.isInstance(error) || error.field !== 'newBranch')
          throw error;
        taken.add(`reset-${n}`);
      }
    }
  }

  /** The interrupted turn of this branch, if one was journaled on top of the current head. */
  async pendingTurn(): Promise<PendingTurn | undefined> {
    await this.#release();
    const pending = await this.#session.store.pendingTurn(this.#session.id, this.#branch);
    return pending && pending.baseHead === this.#head ? pending : undefined;
  }

  /** Whether the store holds a message with this id on the branch (even one compaction folded). */
  holds(id: string): boolean {
    return this.#known.has(id);
  }

  /** The head of the branch as this binding last saw it (null: an empty branch). */
  get head(): string | null {
    return this.#head;
  }

  /**
   * Commits, as one checkpoint, the messages of `history` the store does not hold yet: its
   * newest messages after the last stored one.
   */
  async commitThrough(
    history: readonly Message[],
    meta: CheckpointMeta = {},
    pendingTurn: CommitOptions['pendingTurn'] = 'clear',
  ): Promise<void> {
    await this.#release();
    const fresh = unknownSuffix(history, this.#known);
    if (fresh.length === 0) return;
    await this.#land([this.#ready(fresh, meta)], pendingTurn);
  }

  /**
   * Hooks for the loop: journal each turn before its tools run, claim each call that must not run
   * twice before it runs and record its result when it ends, commit each whole turn.
   */
  hooks(): LoopHooks {
    const { store, id } = this.#session;
    const repeatable = this.#mayRepeat;
    return {
      beforeTools: async (assistant) => {
        await this.#release();
        await store.journalTurn(id, this.#branch, this.#head, assistant);
      },
      toolStart: async (call) => {
        if (!repeatable(call.name)) await store.journalStart(id, this.#branch, call.id);
      },
      toolEnd: async (call, result) => {
        if (!repeatable(call.name)) await store.journalEnd(id, this.#branch, call.id, result);
      },
      // Even a repeatable call's question is journaled: it exists only in the journal.
      toolQuestion: (call, question) => store.journalQuestion(id, this.#branch, call.id, question),
      turnCommitted: async (turn) => {
        const ready = this.#ready(turn.messages, {
          usage: turn.usage,
          costUsd: turn.costUsd,
          model: turn.model,
          extra: turn.context ? { context: turn.context } : undefined,
        });
        const held = this.#heldTurn;
        this.#heldTurn = undefined;
        if (held) await this.#land([held, ready]);
        else if (this.#holdToolTurns && store.commitTurns && endsWithResults(turn.messages))
          this.#heldTurn = ready;
        else await this.#land([ready]);
      },
      compacted: async (events, history) => {
        const patches = compactionPatches(events, history);
        this.#pendingPatches.push(...patches);
        // A summary or drop note is stored as its patch, with the next checkpoint: never as a turn.
        for (const patch of patches) if (patch.insert) this.#known.add(patch.insert.id);
      },
    };
  }

  /**
   * Claims, once, a call held on a question to run it again with `answers`
   * (`SessionStore.journalAnswer`): another writer that answered it first wins.
   */
  claimAnswer(callId: string, answers: readonly unknown[]): Promise<void> {
    return this.#session.store.journalAnswer(this.#session.id, this.#branch, callId, answers);
  }

  /** Journals a decided call's result (a denial) whatever its tool, so a later resume keeps it. */
  settle(callId: string, result: ToolResultBlock): Promise<void> {
    return this.#session.store.journalEnd(this.#session.id, this.#branch, callId, result);
  }

  /** A turn ready to commit, with the compactions made before it (taken from the binding). */
  #ready(messages: readonly Message[], meta: CheckpointMeta): ReadyTurn {
    const patches = this.#pendingPatches;
    this.#pendingPatches = [];
    return { messages, meta, patches };
  }

  /** Commits the held-back tool turn on its own, before another write. */
  async #release(): Promise<void> {
    const held = this.#heldTurn;
    this.#heldTurn = undefined;
    if (held) await this.#land([held]);
  }

  /**
   * Commits `turns` as one checkpoint each, in one durable write. A failure gives their
   * compactions back to the next commit.
   */
  async #land(
    turns: readonly ReadyTurn[],
    pendingTurn: CommitOptions['pendingTurn'] = 'clear',
  ): Promise<void> {
    const { store, id } = this.#session;
    const options = { expectedHead: this.#head, branch: this.#branch, pendingTurn };
    const stored = turns.map(({ messages, meta, patches }) => {
      const extra: Record<string, unknown> = { ...meta.extra };
      if (patches.length > 0) extra.compactions = patches;
      if (this.boundary !== undefined) extra[BOUNDARY_KEY] = this.boundary;
      return { messages, meta: Object.keys(extra).length === 0 ? meta : { ...meta, extra } };
    });
    let head: string | undefined;
    try {
      const [first] = stored;
      if (stored.length === 1 && first) head = (await store.commit(id, first, options)).id;
      else head = (await (store.commitTurns as CommitTurns)(id, stored, options)).at(-1)?.id;
    } catch (error) {
      this.#pendingPatches = [...turns.flatMap((turn) => turn.patches), ...this.#pendingPatches];
      throw error;
    }
    if (head !== undefined) this.#head = head;
    for (const turn of turns) for (const message of turn.messages) this.#known.add(message.id);
    if (this.boundary !== undefined) this.#boundaries = withNewest(this.#boundaries, this.boundary);
  }
}

/**
 * The messages of `history` after the last one `known` holds: what the store does not have yet.
 * Only the tail is walked (a turn's worth), so a commit costs the same at turn 10 and turn 10,000.
 */
function unknownSuffix(history: readonly Message[], known: ReadonlySet<string>): Message[] {
  let start = history.length;
  while (start > 0 && !known.has((history[start - 1] as Message).id)) start--;
  return history.slice(start);
}

/** A turn ready to commit: its messages and meta, and the compactions made before it. */
interface ReadyTurn {
  readonly messages: readonly Message[];
  readonly meta: CheckpointMeta;
  readonly patches: readonly CompactionPatch[];
}

type CommitTurns = NonNullable<SessionStore['commitTurns']>;

/** Whether a turn ends with its tool results (a tool turn, which a next turn follows). */
function endsWithResults(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return (
    last?.role === 'user' &&
    last.content.length > 0 &&
    last.content.every((block) => block.type === 'tool_result')
  );
}
