import {
  type AgentEvent,
  type CompactionOptions,
  ConfigError,
  type ContextMeter,
  HarnessError,
  type Message,
  messageText,
  type ResolvedLoopSettings,
  type RunResult,
  type RunStatus,
  resolveLoopOptions,
  runLoop,
  type SessionState,
  type ToolExecutor,
  withRunLimits,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { agentCompaction, agentMeter } from './agent-compaction.js';
import { AgentFencing, type Refence } from './agent-fencing.js';
import {
  type AgentOptions,
  buildExecutor,
  checkAgentOptions,
  failedBeforeStart,
  type RunOptions,
} from './agent-options.js';
import { recoverTurn, toPromptMessage } from './agent-recovery.js';
import { withCancelMark } from './cancel-mark.js';
import { type RunOutput, resolveRunOutput, type TypedRunResult } from './run-output.js';
import { SessionBinding } from './session-binding.js';

/**
 * An agent: a model, a conversation, tools and the loop. Each `run` continues the same
 * conversation; the history always satisfies the pairing invariant, even after a cancelled run.
 * One run at a time per agent.
 * @example
 * import { Agent, calculatorTool, fake } from '@mh/sdk';
 * const agent = new Agent({ provider: fake(), model: 'fake', tools: [calculatorTool()] });
 * const result = await agent.run('What is 6*7?');
 * console.log(result.text); // The answer is 42.
 */
export class Agent {
  readonly #options: AgentOptions;
  readonly #fencing: AgentFencing;
  /** Re-fences stored results with the boundary in use (see `AgentFencing.follow`). */
  #refence: Refence = (messages) => messages.slice();
  readonly #mayRepeat: (toolName: string) => boolean;
  readonly #session: SessionBinding | undefined;
  readonly #meter: ContextMeter;
  readonly #compaction: CompactionOptions | undefined;
  /** The loop's settings, checked once here (see `resolveLoopOptions`). */
  readonly #settings: ResolvedLoopSettings;
  #history: Message[];
  #loaded = false;
  #running = false;
  /** A reset whose store part (a new empty branch) is still under way; runs wait for it. */
  #resetting: Promise<unknown> | undefined;
  /** A reset asked for whose new branch the store does not have yet (its store part failed). */
  #resetOwed = false;
  /** How the last loop ended, as it reported when it settled. */
  #settledStatus: RunStatus | undefined;
  /** Whether the current stream got as far as the loop (its prompt is kept). */
  #loopStarted = false;

  constructor(options: AgentOptions) {
    const settings = checkAgentOptions(options);
    this.#options = options;
    const tools = buildExecutor(options);
    this.#fencing = new AgentFencing(options, options.system, tools.executor);
    this.#mayRepeat = tools.mayRepeat;
    this.#meter = agentMeter(options.compaction);
    this.#compaction = agentCompaction(options.compaction, options.model, this.#meter);
    // The fenced system prompt and executor, and the compaction: the agent's own, checked once.
    this.#settings = resolveLoopOptions(
      { system: this.#system, tools: this.#executor, compaction: this.#compaction },
      settings,
    );
    this.#session =
      options.session === undefined
        ? undefined
        : new SessionBinding(options.session, tools.mayRepeat);
    // Kept as given: the first run repairs it and reports each repair (history-repair, RunResult).
    this.#history = options.history ? [...options.history] : [];
  }

  get #system(): string | undefined {
    return this.#fencing.system;
  }

  get #executor(): ToolExecutor | undefined {
    return this.#fencing.executor;
  }

  /** The conversation so far (a copy). */
  get history(): readonly Message[] {
    return this.#history.slice();
  }

  /**
   * Forgets the conversation. With a session, the conversation goes on from empty on a new branch
   * (`reset-1`, `reset-2`, …) that becomes the session's current branch: the old branch stays as
   * it was, so the reset is recorded and nothing stored is lost. The history is empty at once;
   * the returned promise settles when the store has the new branch. A reset whose store part
   * failed stays owed: the next reset, run, load or branch operation tries it again first (and
   * fails with the store's error if it fails again), so a prompt never lands on the old branch.
   */
  reset(): Promise<void> {
    this.#assertIdle();
    this.#history = [];
    const session = this.#session;
    if (!session) return Promise.resolve();
    this.#resetOwed = true;
    const previous = this.#resetting ?? Promise.resolve();
    const done = previous.catch(() => {}).then(() => this.#payReset(session));
    this.#resetting = done;
    // Awaited or not: an unawaited reset must not crash the process; it stays owed until done.
    done.catch(() => {});
    return done;
  }

  /** Starts the owed reset's empty branch; on failure the reset stays owed and the view empty. */
  async #payReset(session: SessionBinding): Promise<void> {
    if (!this.#resetOwed) return;
    try {
      // Loaded through the fencing, so the boundary it records is the session's.
      await this.#loadOnce(session);
      if (session.exists && session.head !== null) this.#follow(session, await session.startOver());
      this.#resetOwed = false;
    } finally {
      this.#history = [];
      this.#restoreMeter();
    }
  }

  /** Waits for a reset under way, then does a reset still owed (its error is the caller's). */
  async #settleReset(): Promise<void> {
    const resetting = this.#resetting;
    if (resetting) {
      await resetting.catch(() => {});
      if (this.#resetting === resetting) this.#resetting = undefined;
    }
    if (this.#resetOwed && this.#session) await this.#payReset(this.#session);
  }

  /**
   * Runs one prompt to the end and returns how it ended. Never throws for run failures. With
   * `options.output` the result carries the typed answer (`result.output`).
   */
  run<T>(
    prompt: string | Message,
    options: RunOptions & { readonly output: RunOutput<T> },
  ): Promise<TypedRunResult<T>>;
  run(prompt: string | Message, options?: RunOptions): Promise<RunResult>;
  async run(prompt: string | Message, options: RunOptions = {}): Promise<RunResult> {
    let result: RunResult | undefined;
    for await (const event of this.stream(prompt, options)) {
      if (event.type === 'run-end') result = event.result;
    }
    if (!result) throw new HarnessError('The run ended without a result');
    return result;
  }

  /**
   * Runs one prompt and yields every event as it happens; the last event is `run-end`. Stopping
   * the iteration early cancels the run. With a session, a turn a crash interrupted is finished
   * first (its recovery events come before `run-start`).
   */
  stream(
    prompt: string | Message,
    options: RunOptions = {},
  ): AsyncGenerator<AgentEvent, void, void> {
    return this.#stream(toPromptMessage(prompt), options);
  }

  /**
   * Continues a persisted conversation that stopped mid-run (a crash, a kill): finishes the
   * interrupted turn without running a non-idempotent tool twice, then lets the model carry on if
   * the last message awaits an answer. Resolves to undefined when there was nothing to resume.
   */
  async resume(options: RunOptions = {}): Promise<RunResult | undefined> {
    let result: RunResult | undefined;
    for await (const event of this.resumeStream(options)) {
      if (event.type === 'run-end') result = event.result;
    }
    return result;
  }

  /** `resume`, yielding every event as it happens (nothing when there is nothing to resume). */
  resumeStream(options: RunOptions = {}): AsyncGenerator<AgentEvent, void, void> {
    return this.#stream(undefined, options);
  }

  /** Loads the session's history (once); the first run does it on its own. */
  async load(): Promise<readonly Message[]> {
    await this.#settleReset();
    if (this.#session) await this.#loadOnce(this.#session);
    return this.history;
  }

  /** Loads the session's branch into the view, through the fencing, unless already loaded. */
  async #loadOnce(session: SessionBinding): Promise<void> {
    if (this.#loaded) return;
    this.#history = this.#follow(session, await session.load());
    this.#restoreMeter();
    this.#loaded = true;
  }

  /** The session id and branch in use, when the agent has a session. */
  get session(): { readonly id: string; readonly branch: string } | undefined {
    return this.#session ? { id: this.#session.id, branch: this.#session.branch } : undefined;
  }

  /**
   * Starts `newBranch` at an earlier checkpoint (null: an empty conversation) and continues there;
   * the old branch stays as it was.
   */
  rewind(checkpointId: string | null, newBranch: string): Promise<readonly Message[]> {
    return this.#moveTo('rewind', (session) =>
      session.store.rewind(session.id, checkpointId, newBranch),
    );
  }

  /** Starts `newBranch` at the current head and continues there. */
  fork(newBranch: string): Promise<readonly Message[]> {
    return this.#moveTo('fork', (session) =>
      session.store.fork(session.id, newBranch, session.branch),
    );
  }

  /** Continues on another existing branch. */
  switchBranch(branch: string): Promise<readonly Message[]> {
    return this.#moveTo('switchBranch', (session) =>
      session.store.switchBranch(session.id, branch),
    );
  }

  /** Moves the session to the branch `move` makes current, once a reset owed is done. */
  async #moveTo(
    method: string,
    move: (session: SessionBinding) => Promise<SessionState>,
  ): Promise<readonly Message[]> {
    const session = this.#requireSession(method);
    await this.load();
    this.#history = this.#follow(session, session.adopt(await move(session)));
    this.#restoreMeter();
    return this.history;
  }

  #requireSession(method: string): SessionBinding {
    this.#assertIdle();
    if (!this.#session)
      throw new ConfigError('session', `${method}() needs an agent created with a session`);
    return this.#session;
  }

  async *#stream(
    message: Message | undefined,
    options: RunOptions,
  ): AsyncGenerator<AgentEvent, void, void> {
    // Every check comes before the prompt is kept or stored: a refused run leaves no trace.
    assertOptions(options, ['signal', 'limits', 'output'], 'options');
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
      throw new ConfigError('options.signal', 'expected an AbortSignal');
    // The agent's settings with this run's limits over its own (only they are checked).
    const runSettings = withRunLimits(this.#settings, options.limits, 'options.limits');
    const output = resolveRunOutput(options.output, runSettings.provider, runSettings.tools);
    this.#assertIdle();
    this.#running = true;
    const session = this.#session;
    let settled = false;
    let failed = false;
    try {
      const opened = yield* this.#open(session, message, options.signal);
      if (opened !== true) {
        if (opened === false) return;
        // The store failed before the run started (a reset that did not land, another writer
        // finishing the turn first, a store error): a run-end, never a throw.
        settled = true;
        this.#loaded = false; // the store is the source of truth: reload before the next run
        yield { type: 'run-end', result: failedBeforeStart(opened.error, this.#history) };
        return;
      }
      if (message) this.#history = [...this.#history, message];
      else if (this.#history.at(-1)?.role !== 'user') return;
      // The prompt is durable before the model sees it: a crash now resumes by answering it.
      const refused = await session?.commitThrough(this.#history).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refused !== undefined) {
        settled = true;
        this.#loaded = false; // another writer moved the session: reload before the next run
        if (message) this.#history = this.#history.slice(0, -1);
        yield { type: 'run-end', result: failedBeforeStart(refused, this.#history) };
        return;
      }
      this.#loopStarted = true;
      this.#settledStatus = undefined;
      const loop = runLoop({
        resolved: this.#fenced(runSettings),
        history: this.#history,
        signal: options.signal,
        output,
        hooks: session?.hooks(),
        // However the run ends (even if the caller stops iterating), keep its valid history.
        onSettled: (history, status) => {
          this.#history = [...history];
          this.#settledStatus = status;
        },
      });
      for await (const event of loop) {
        if (event.type !== 'run-end') {
          yield event;
          continue;
        }
        let result = event.result;
        if (result.status === 'cancelled') {
          const marked = withCancelMark(this.#history, result);
          this.#history = marked.history;
          result = marked.result;
        }
        settled = true;
        yield {
          type: 'run-end',
          result: session ? await this.#commitRest(session, result) : result,
        };
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if (!settled) {
        // A consumer that stopped iterating early cancelled the run: record the cancel.
        const abandoned = this.#loopStarted && !failed && this.#settledStatus === 'cancelled';
        if (abandoned) this.#history = withCancelMark(this.#history).history;
        // Either way, leave a committed, valid history behind.
        await session
          ?.commitThrough(this.#history, abandoned ? { extra: { status: 'cancelled' } } : {})
          .catch(() => {
            this.#loaded = false; // the store is the source of truth: reload before the next run
          });
      }
      this.#loopStarted = false;
      this.#running = false;
    }
  }

  /**
   * Everything before the prompt joins the history: a reset under way, the session's history,
   * and the turn a crash interrupted. Resolves to true to go on, false when there is nothing to
   * resume, or the store's failure. A prompt whose id the conversation already holds is refused.
   */
  async *#open(
    session: SessionBinding | undefined,
    message: Message | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<AgentEvent, boolean | { readonly error: unknown }, void> {
    try {
      await this.#settleReset();
      if (session) await this.#loadOnce(session);
    } catch (error) {
      return { error };
    }
    // Also the messages compaction folded from the view: the store still holds them.
    if (message && (session?.holds(message.id) || this.#history.some((m) => m.id === message.id))) {
      throw new ConfigError('prompt.id', `message ${message.id} is already in the conversation`);
    }
    if (!session) return true;
    if (!session.exists && !message) return false; // nothing was ever run: nothing to resume
    try {
      await session.ensureCreated(
        message ? messageText(message).replace(/\s+/g, ' ').slice(0, 80) : undefined,
      );
      yield* this.#recover(session, signal);
    } catch (error) {
      return { error };
    }
    return true;
  }

  /**
   * Makes the fencing follow the branch just loaded (its stored boundary, see
   * `AgentFencing.follow`) and returns its history as the agent sends it.
   */
  /**
   * The settings with the system prompt and executor of the fence in use: the branch loaded since
   * the settings were made may have moved the fence to its stored boundary (see `#follow`).
   */
  #fenced(settings: ResolvedLoopSettings): ResolvedLoopSettings {
    if (settings.system === this.#system && settings.tools === this.#executor) return settings;
    return resolveLoopOptions({ system: this.#system, tools: this.#executor }, settings);
  }

  #follow(session: SessionBinding, history: Message[]): Message[] {
    this.#refence = this.#fencing.follow(session.boundaries);
    session.boundary = this.#fencing.boundary;
    return this.#refence(history);
  }

  /** Sizes the context of a loaded session from its stored usage (see `ContextMeter.restore`). */
  #restoreMeter(): void {
    if (!this.#session || !this.#compaction) return;
    const { states, messages } = this.#session.context;
    this.#meter.restore(states, {
      model: this.#options.model,
      system: this.#system,
      tools: this.#executor?.specs() ?? [],
      messages: this.#refence(messages),
    });
  }

  /** Commits what the run left uncommitted (a cancelled turn); a failure makes the run an error. */
  async #commitRest(session: SessionBinding, result: RunResult): Promise<RunResult> {
    try {
      await session.commitThrough(this.#history, {
        extra: { runId: result.runId, status: result.status },
      });
      return result;
    } catch (error) {
      this.#loaded = false; // reload from the store next time: it is the source of truth
      return {
        ...result,
        status: 'error',
        error: error instanceof Error ? error : new HarnessError(String(error)),
      };
    }
  }

  /** Finishes the turn a crash interrupted (see `planRecovery`) and commits it. */
  async *#recover(
    session: SessionBinding,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<AgentEvent, void, void> {
    const recovered = yield* recoverTurn(session, {
      executor: this.#executor,
      mayRepeat: this.#mayRepeat,
      refence: this.#refence,
      signal,
    });
    if (!recovered) return;
    this.#history = [...this.#history, ...recovered.turn];
    await session.commitThrough(this.#history, { extra: { recovered: true } });
    yield {
      type: 'history-repair',
      repairs: [
        {
          kind: 'synthesized-result',
          messageId: recovered.assistantId,
          detail: `resumed an interrupted turn: ${recovered.ran} call(s) run, ${recovered.interrupted} reported as interrupted`,
        },
      ],
    };
  }

  #assertIdle(): void {
    if (this.#running)
      throw new HarnessError('This agent is already running; wait for the run to end');
  }
}
