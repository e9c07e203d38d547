import {
  type AgentEvent,
  ConfigError,
  HarnessError,
  type Interrupt,
  type Message,
  type ResolvedLoopSettings,
  type RunResult,
  resolveLoopOptions,
  type SessionState,
  type StepRunner,
  stepStore,
  withRunLimits,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { agentCompaction, agentMeter } from './agent-compaction.js';
import { AgentConversation } from './agent-conversation.js';
import { AgentFencing } from './agent-fencing.js';
import { checkDecisions, tokenFor } from './agent-interrupts.js';
import {
  type AgentOptions,
  buildExecutor,
  checkAgentOptions,
  type ResumeOptions,
  type RunOptions,
} from './agent-options.js';
import { toPromptMessage } from './agent-recovery.js';
import { runAgent } from './agent-run.js';
import { approvalKeyBytes } from './approval-token.js';
import { type RunOutput, resolveRunOutput, type TypedRunResult } from './run-output.js';
import { type AgentSession, SessionBinding } from './session-binding.js';

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
  readonly #conversation: AgentConversation;
  readonly #mayRepeat: (toolName: string) => boolean;
  /** The loop's settings, checked once here (see `resolveLoopOptions`). */
  readonly #settings: ResolvedLoopSettings;
  /** The approval key's bytes (`options.approvalKey`), when interrupts are signed. */
  readonly #key: Buffer | undefined;
  /** The durable engine's step runner (`options.steps`), when runs are durable. */
  readonly #steps: StepRunner | undefined;
  #running = false;

  constructor(options: AgentOptions) {
    const settings = checkAgentOptions(options);
    this.#key =
      options.approvalKey === undefined ? undefined : approvalKeyBytes(options.approvalKey);
    const tools = buildExecutor(options);
    const fencing = new AgentFencing(options, options.system, tools.executor);
    this.#mayRepeat = tools.mayRepeat;
    const meter = agentMeter(options.compaction);
    const compaction = agentCompaction(options.compaction, options.model, meter);
    // The fenced system prompt and executor, and the compaction: the agent's own, checked once.
    this.#settings = resolveLoopOptions(
      { system: fencing.system, tools: fencing.executor, compaction },
      settings,
    );
    this.#steps = options.steps;
    const session =
      options.session === undefined
        ? undefined
        : new SessionBinding(durableSession(options.session, options.steps), tools.mayRepeat, {
            // A durable run keeps one store step per turn: its step sequence stays what it was.
            holdToolTurns: options.steps === undefined,
          });
    this.#conversation = new AgentConversation({
      fencing,
      session,
      meter,
      compaction,
      model: options.model,
      history: options.history,
    });
  }

  /**
   * The conversation so far (a copy). During a run, the conversation as the run started (its
   * prompt last): the run's own messages join once it settles, so what is shown stays paired.
   */
  get history(): readonly Message[] {
    return this.#conversation.shown();
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
    return this.#conversation.reset();
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
   * Continues a conversation that stopped mid-run: a crash or a kill (with a session), or an
   * interrupt. It finishes the pending turn without running a non-idempotent tool twice: calls a
   * person decided on (`options.decisions`) run once approved or get the denial; if a waiting call
   * has no decision yet, the result is `interrupted` again and nothing runs. Then the model carries
   * on if the last message awaits an answer. A decision for a call that does not wait, or whose
   * token fails (with an `approvalKey`), is a `ConfigError` naming it. Resolves to undefined when
   * there was nothing to resume. A new prompt instead of `resume` answers the waiting calls as not
   * run.
   */
  async resume(options: ResumeOptions = {}): Promise<RunResult | undefined> {
    let result: RunResult | undefined;
    for await (const event of this.resumeStream(options)) {
      if (event.type === 'run-end') result = event.result;
    }
    return result;
  }

  /** `resume`, yielding every event as it happens (nothing when there is nothing to resume). */
  resumeStream(options: ResumeOptions = {}): AsyncGenerator<AgentEvent, void, void> {
    return this.#stream(undefined, options);
  }

  /**
   * The token a decision on `interrupt` carries when its arguments are edited to `input` (the
   * interrupt's own `token` covers its arguments as given). Needs an `approvalKey`; only a holder
   * of the key can make one.
   */
  approvalToken(interrupt: Pick<Interrupt, 'callId' | 'tool'>, input: unknown): string {
    if (this.#key === undefined)
      throw new ConfigError('approvalKey', 'approvalToken() needs an agent with an approvalKey');
    const session = this.#conversation.session;
    const held = this.#conversation.held;
    // Where the pending turn sits now: a token made for a moved session is stale at once.
    const where = session
      ? { sessionId: session.id, branch: session.branch, head: session.head }
      : { sessionId: '', branch: '', head: held?.assistant.id ?? null };
    return tokenFor(this.#key, where, interrupt, input);
  }

  /** Loads the session's history (once); the first run does it on its own. */
  async load(): Promise<readonly Message[]> {
    await this.#conversation.load();
    return this.history;
  }

  /** The session id and branch in use, when the agent has a session. */
  get session(): { readonly id: string; readonly branch: string } | undefined {
    const session = this.#conversation.session;
    return session ? { id: session.id, branch: session.branch } : undefined;
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
    this.#assertIdle();
    const session = this.#conversation.session;
    if (!session)
      throw new ConfigError('session', `${method}() needs an agent created with a session`);
    await this.#conversation.moveTo(session, move);
    return this.history;
  }

  /** Checks this run's options, then runs it (see `runAgent`), one run at a time. */
  async *#stream(
    message: Message | undefined,
    options: ResumeOptions,
  ): AsyncGenerator<AgentEvent, void, void> {
    // Every check comes before the prompt is kept or stored: a refused run leaves no trace.
    assertOptions(
      options,
      message ? ['signal', 'limits', 'output'] : ['signal', 'limits', 'output', 'decisions'],
      'options',
    );
    const decisions = checkDecisions(options.decisions);
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
      throw new ConfigError('options.signal', 'expected an AbortSignal');
    if (this.#steps !== undefined && options.limits?.timeoutMs !== undefined)
      throw new ConfigError(
        'options.limits.timeoutMs',
        'a durable agent (steps) takes no wall-clock timeout: a replay would time out at another point',
      );
    // The agent's settings with this run's limits over its own (only they are checked).
    const settings = withRunLimits(this.#settings, options.limits, 'options.limits');
    const output = resolveRunOutput(options.output, settings.provider, settings.tools);
    this.#assertIdle();
    this.#running = true;
    try {
      yield* runAgent(this.#conversation, {
        message,
        settings,
        mayRepeat: this.#mayRepeat,
        signal: options.signal,
        output,
        decisions,
        key: this.#key,
        steps: this.#steps,
      });
    } finally {
      this.#running = false;
    }
  }

  #assertIdle(): void {
    if (this.#running)
      throw new HarnessError('This agent is already running; wait for the run to end');
  }
}

/** The session with its store's calls taken as the durable engine's steps (with `steps`). */
function durableSession(session: AgentSession, steps: StepRunner | undefined): AgentSession {
  if (steps === undefined || typeof session !== 'object' || session === null) return session;
  return { ...session, store: stepStore(session.store, steps) };
}
