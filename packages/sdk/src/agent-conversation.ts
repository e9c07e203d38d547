import {
  type CompactionOptions,
  type ContextMeter,
  type HeldTurn,
  type Message,
  type ResolvedLoopSettings,
  resolveLoopOptions,
  type SessionState,
  type ToolExecutor,
} from '@mh/core';
import { lendHistory } from '@mh/core/internal';
import type { AgentFencing, Refence } from './agent-fencing.js';
import type { SessionBinding } from './session-binding.js';

/** What an agent's conversation is made of, from its options (see `Agent`'s constructor). */
export interface ConversationParts {
  /** The fencing of tool results; it follows the branch loaded. */
  readonly fencing: AgentFencing;
  /** The session the conversation is stored in, if any. */
  readonly session: SessionBinding | undefined;
  /** The agent's context meter, restored from the session's stored usage. */
  readonly meter: ContextMeter;
  /** The agent's compaction, if on (the meter is only restored then). */
  readonly compaction: CompactionOptions | undefined;
  /** The agent's model, as the meter sizes its requests. */
  readonly model: string;
  /** The history the agent starts from (kept as given: the first run repairs it). */
  readonly history: readonly Message[] | undefined;
}

/**
 * An agent's conversation: its history as the agent sends it, and the session branch under it
 * (loading it once, resetting to a new branch, moving between branches), with the fencing and the
 * context meter following each branch loaded. The view and the store are kept in step; a run
 * (`runAgent`) reads and extends the history, and `invalidate`s the view when the store
 * refused a write, so the next load rereads it.
 */
export class AgentConversation {
  #history: Message[];
  /**
   * While a run has the history (`lend`), its length when lent: the run appends to the array as
   * it goes, and what the agent shows meanwhile ends there (its prompt), always paired.
   */
  #lentLength: number | undefined;
  /**
   * A turn held back for a person's decisions, without a session (with one, the store's journal
   * holds it): what `resume({ decisions })` finishes.
   */
  held: HeldTurn | undefined;
  /** The session the conversation is stored in, if any. */
  readonly session: SessionBinding | undefined;
  readonly #fencing: AgentFencing;
  readonly #meter: ContextMeter;
  readonly #compaction: CompactionOptions | undefined;
  readonly #model: string;
  /** Re-fences stored results with the boundary in use (see `AgentFencing.follow`). */
  #refence: Refence = (messages) => messages.slice();
  #loaded = false;
  /** A reset whose store part (a new empty branch) is still under way; runs wait for it. */
  #resetting: Promise<unknown> | undefined;
  /** A reset asked for whose new branch the store does not have yet (its store part failed). */
  #resetOwed = false;

  constructor(parts: ConversationParts) {
    this.#fencing = parts.fencing;
    this.session = parts.session;
    this.#meter = parts.meter;
    this.#compaction = parts.compaction;
    this.#model = parts.model;
    this.#history = parts.history ? [...parts.history] : [];
    this.held = undefined;
  }

  /** The history the agent sends: the loaded branch, re-fenced, plus what runs added. */
  get history(): Message[] {
    return this.#history;
  }

  /** Puts a new history in place (a load, a reset, a rewrite): a run given one before is over. */
  set history(history: Message[]) {
    this.#history = history;
    this.#lentLength = undefined;
  }

  /**
   * Lends the history to a run (`lendHistory`): the run appends to it in place and gives it back
   * through `settled`. Until then `shown` ends where the history ended when lent.
   */
  lend(): Message[] {
    this.#lentLength = this.#history.length;
    return lendHistory(this.#history);
  }

  /**
   * A copy of the history for a caller (`agent.history`): while a run has it, the history as the
   * run started, since the run's own messages are not settled (a call may wait for its result).
   */
  shown(): Message[] {
    return this.#history.slice(0, this.#lentLength ?? this.#history.length);
  }

  /**
   * Appends `messages` to the history in place. The history is the conversation's own array: it
   * is never handed out (`agent.history` and a run's `messages` are copies), and it is lent to
   * each run (`lendHistory`), which appends to it in place too. So a run costs what it adds,
   * not the length of the conversation: nothing below the array's length ever changes, and a
   * rewrite (a load, a reset, a compaction) puts a new array in its place.
   */
  extend(messages: readonly Message[]): void {
    for (const message of messages) this.#history.push(message);
  }

  /** Takes back the history a run settled: the array it was lent, or the one a rewrite made. */
  settled(history: readonly Message[]): void {
    this.history = history as Message[];
  }

  /** The system prompt with the rule of the fence in use. */
  get system(): string | undefined {
    return this.#fencing.system;
  }

  /** The tool executor, fencing results with the boundary in use. */
  get executor(): ToolExecutor | undefined {
    return this.#fencing.executor;
  }

  /** Re-fences `messages` with the boundary in use (see `Refence`). */
  refence(messages: readonly Message[], options?: { readonly journaled?: boolean }): Message[] {
    return this.#refence(messages, options);
  }

  /** Forgets that the branch is loaded: the store is the source of truth, so the next use reloads. */
  invalidate(): void {
    this.#loaded = false;
  }

  /**
   * Empties the history at once; with a session, starts the owed new branch (see `Agent.reset`).
   * An unawaited reset never crashes the process: it stays owed until done.
   */
  reset(): Promise<void> {
    this.history = [];
    this.held = undefined;
    const session = this.session;
    if (!session) return Promise.resolve();
    this.#resetOwed = true;
    const previous = this.#resetting ?? Promise.resolve();
    const done = previous.catch(() => {}).then(() => this.#payReset(session));
    this.#resetting = done;
    done.catch(() => {});
    return done;
  }

  /** Starts the owed reset's empty branch; on failure the reset stays owed and the view empty. */
  async #payReset(session: SessionBinding): Promise<void> {
    if (!this.#resetOwed) return;
    try {
      // Loaded through the fencing, so the boundary it records is the session's.
      await this.loadOnce();
      if (session.exists && session.head !== null) this.#follow(session, await session.startOver());
      this.#resetOwed = false;
    } finally {
      this.history = [];
      this.#restoreMeter();
    }
  }

  /** Waits for a reset under way, then does a reset still owed (its error is the caller's). */
  async settleReset(): Promise<void> {
    const resetting = this.#resetting;
    if (resetting) {
      await resetting.catch(() => {});
      if (this.#resetting === resetting) this.#resetting = undefined;
    }
    if (this.#resetOwed && this.session) await this.#payReset(this.session);
  }

  /** Settles a reset, then loads the session's branch unless already loaded. */
  async load(): Promise<void> {
    await this.settleReset();
    await this.loadOnce();
  }

  /** Loads the session's branch into the view, through the fencing, unless already loaded. */
  async loadOnce(): Promise<void> {
    const session = this.session;
    if (!session || this.#loaded) return;
    this.history = this.#follow(session, await session.load());
    this.#restoreMeter();
    this.#loaded = true;
  }

  /** Moves the session to the branch `move` makes current, once a reset owed is done. */
  async moveTo(
    session: SessionBinding,
    move: (session: SessionBinding) => Promise<SessionState>,
  ): Promise<void> {
    await this.load();
    this.history = this.#follow(session, session.adopt(await move(session)));
    this.#restoreMeter();
  }

  /**
   * The settings with the system prompt and executor of the fence in use: the branch loaded since
   * the settings were made may have moved the fence to its stored boundary (see `#follow`).
   */
  fenced(settings: ResolvedLoopSettings): ResolvedLoopSettings {
    if (settings.system === this.system && settings.tools === this.executor) return settings;
    return resolveLoopOptions({ system: this.system, tools: this.executor }, settings);
  }

  /**
   * Makes the fencing follow the branch just loaded (its stored boundary, see
   * `AgentFencing.follow`) and returns its history as the agent sends it.
   */
  #follow(session: SessionBinding, history: Message[]): Message[] {
    this.#refence = this.#fencing.follow(session.boundaries);
    session.boundary = this.#fencing.boundary;
    return this.#refence(history);
  }

  /** Sizes the context of a loaded session from its stored usage (see `ContextMeter.restore`). */
  #restoreMeter(): void {
    if (!this.session || !this.#compaction) return;
    const { states, messages } = this.session.context;
    this.#meter.restore(states, {
      model: this.#model,
      system: this.system,
      tools: this.executor?.specs() ?? [],
      messages: this.#refence(messages),
    });
  }
}
