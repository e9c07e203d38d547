import {
  type AgentEvent,
  assertImplements,
  assertMessages,
  assertOptions,
  type Clock,
  ConfigError,
  defaultPricing,
  HarnessError,
  type Limits,
  type Message,
  messageText,
  newMessageId,
  type Permission,
  type PermissionPolicy,
  type PricingTable,
  type Provider,
  type RunResult,
  runLoop,
  type Tool,
  type ToolExecutor as ToolExecutorPort,
  type ToolOutcome,
  type ToolResultBlock,
  type ToolUseBlock,
  type Tracer,
  toolResult,
  toolUsesOf,
  userMessage,
  validateLimits,
  ZERO_USAGE,
} from '@mh/core';
import { type ApproveCallback, ToolExecutor, ToolRegistry } from '@mh/tools';
import {
  type AgentSession,
  interruptedOutcomeText,
  planRecovery,
  SessionBinding,
} from './session-binding.js';

/** Who may run `write` and `exec` tools. `read` tools are always allowed by the default policy. */
export interface AgentPermissions {
  /** Permissions granted outright, e.g. `['write']`. */
  readonly grants?: readonly Permission[];
  /** Asked for each call whose permission is not granted; true allows it. */
  readonly approve?: ApproveCallback;
  /** A policy replacing the default one (grants and approve are then ignored). */
  readonly policy?: PermissionPolicy;
}

/** Configuration of an `Agent`. */
export interface AgentOptions {
  /** The model provider: `fake()`, `anthropic()`, `openai()`, … */
  readonly provider: Provider;
  /** Model id sent to the provider. */
  readonly model: string;
  /** System prompt. */
  readonly system?: string;
  /** Tools: a list, a registry, or a ready executor (then `permissions` is ignored). */
  readonly tools?: readonly Tool[] | ToolRegistry | ToolExecutorPort;
  /** Permission policy for the default executor. */
  readonly permissions?: AgentPermissions;
  /** Guards applied to every run (a run may override them). */
  readonly limits?: Limits;
  /** Receives spans. */
  readonly tracer?: Tracer;
  /** Prices for cost accounting and the cost guard. */
  readonly pricing?: PricingTable;
  /** Cap on generated tokens per model call. */
  readonly maxOutputTokens?: number;
  /** Sampling temperature. */
  readonly temperature?: number;
  /** History to start from (repaired if needed). */
  readonly history?: readonly Message[];
  /** Time source (tests). */
  readonly clock?: Clock;
  /** Persist the conversation: each turn is committed, each tool call journaled (crash-safe). */
  readonly session?: AgentSession;
}

/** Per-run options. */
export interface RunOptions {
  /** Cancels the run; it ends with status `cancelled` and a valid history. */
  readonly signal?: AbortSignal;
  /** Guards for this run, merged over the agent's. */
  readonly limits?: Limits;
}

const OPTION_KEYS = [
  'provider',
  'model',
  'system',
  'tools',
  'permissions',
  'limits',
  'tracer',
  'pricing',
  'maxOutputTokens',
  'temperature',
  'history',
  'clock',
  'session',
];

/** The result of a run that could not start (its prompt could not be committed). */
function failedBeforeStart(error: unknown, history: readonly Message[]): RunResult {
  return {
    runId: newMessageId('run'),
    status: 'error',
    error: error instanceof Error ? error : new HarnessError(String(error)),
    text: '',
    turns: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
    durationMs: 0,
    messages: history,
    newMessages: [],
    repairs: [],
  };
}

/** Per-run limits over the agent's; a key set to `undefined` does not erase the agent's value. */
function mergeLimits(base: Limits | undefined, override: Limits | undefined): Limits {
  const merged: Record<string, number | undefined> = { ...base };
  for (const [key, value] of Object.entries(override ?? {}))
    if (value !== undefined) merged[key] = value;
  return merged as Limits;
}

function isExecutor(value: unknown): value is ToolExecutorPort {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolExecutorPort).execute === 'function'
  );
}

const GRANTABLE = new Set(['read', 'write', 'exec']);

function checkPermissions(permissions: AgentPermissions | undefined): AgentPermissions {
  if (permissions === undefined) return {};
  if (typeof permissions !== 'object' || permissions === null) {
    throw new ConfigError('permissions', 'expected an object');
  }
  assertOptions(permissions, ['grants', 'approve', 'policy'], 'permissions');
  const { grants, approve, policy } = permissions;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || grants.some((grant) => !GRANTABLE.has(grant)))
  ) {
    throw new ConfigError('permissions.grants', "expected an array of 'read', 'write' or 'exec'");
  }
  if (approve !== undefined && typeof approve !== 'function') {
    throw new ConfigError('permissions.approve', 'expected a function');
  }
  if (policy !== undefined && typeof policy?.check !== 'function') {
    throw new ConfigError(
      'permissions.policy',
      'expected a PermissionPolicy with a check() method',
    );
  }
  return permissions;
}

/** The executor and how to tell whether a tool is idempotent (for crash recovery). */
interface AgentTools {
  readonly executor: ToolExecutorPort | undefined;
  readonly isIdempotent: (toolName: string) => boolean;
}

function buildExecutor(options: AgentOptions): AgentTools {
  const tools = options.tools;
  if (tools === undefined) return { executor: undefined, isIdempotent: () => false };
  // A foreign executor does not say which tools are idempotent: none is assumed to be.
  if (isExecutor(tools)) return { executor: tools, isIdempotent: () => false };
  let registry: ToolRegistry;
  if (tools instanceof ToolRegistry) registry = tools;
  else if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, index) => {
      const candidate = tool as Partial<Tool> | null;
      if (
        typeof candidate !== 'object' ||
        candidate === null ||
        typeof candidate.name !== 'string' ||
        typeof candidate.run !== 'function' ||
        typeof candidate.schema?.parse !== 'function'
      ) {
        throw new ConfigError(`tools[${index}]`, 'expected a Tool (use defineTool)');
      }
    });
    registry = new ToolRegistry(tools);
  } else
    throw new ConfigError('tools', 'expected an array of tools, a ToolRegistry or a ToolExecutor');
  const permissions = checkPermissions(options.permissions);
  const executor = new ToolExecutor({
    registry,
    policy: permissions.policy,
    grants: permissions.grants,
    approve: permissions.approve,
  });
  return { executor, isIdempotent: (name) => registry.get(name)?.idempotent === true };
}

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
  readonly #executor: ToolExecutorPort | undefined;
  readonly #isIdempotent: (toolName: string) => boolean;
  readonly #session: SessionBinding | undefined;
  #history: Message[];
  #loaded = false;
  #running = false;

  constructor(options: AgentOptions) {
    if (options === null || typeof options !== 'object')
      throw new ConfigError('options', 'expected an object');
    assertOptions(options, OPTION_KEYS, '');
    assertImplements(options.tracer, ['startSpan', 'withSpan'], 'tracer', 'a Tracer');
    assertImplements(options.clock, ['now', 'sleep'], 'clock', 'a Clock');
    assertImplements(options.pricing, ['cost', 'lookup'], 'pricing', 'a PricingTable');
    if (!options.provider || typeof options.provider.stream !== 'function') {
      throw new ConfigError('provider', 'expected a Provider, e.g. fake() or anthropic()');
    }
    if (typeof options.model !== 'string' || options.model.trim() === '') {
      throw new ConfigError('model', 'expected a non-empty model id');
    }
    if (options.system !== undefined && typeof options.system !== 'string')
      throw new ConfigError('system', 'expected a string');
    if (options.history !== undefined) assertMessages(options.history, 'history');
    if (
      options.maxOutputTokens !== undefined &&
      (!Number.isInteger(options.maxOutputTokens) || options.maxOutputTokens <= 0)
    ) {
      throw new ConfigError(
        'maxOutputTokens',
        `expected a positive integer, got ${String(options.maxOutputTokens)}`,
      );
    }
    const temperature = options.temperature;
    if (
      temperature !== undefined &&
      (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature < 0)
    ) {
      throw new ConfigError('temperature', `expected a number >= 0, got ${String(temperature)}`);
    }
    const limits = validateLimits(options.limits);
    if (
      limits.maxCostUsd !== undefined &&
      (options.pricing ?? defaultPricing).lookup(options.model) === undefined
    ) {
      throw new ConfigError(
        'limits.maxCostUsd',
        `no price is known for model ${options.model}; add one with pricing`,
      );
    }
    checkPermissions(options.permissions);
    this.#options = options;
    const tools = buildExecutor(options);
    this.#executor = tools.executor;
    this.#isIdempotent = tools.isIdempotent;
    this.#session = options.session === undefined ? undefined : new SessionBinding(options.session);
    if (options.session !== undefined && options.history !== undefined) {
      throw new ConfigError(
        'history',
        'give either history or session: a session loads its own history',
      );
    }
    // Kept as given: the first run repairs it and reports each repair (history-repair, RunResult).
    this.#history = options.history ? [...options.history] : [];
  }

  /** The conversation so far (a copy). */
  get history(): readonly Message[] {
    return this.#history.slice();
  }

  /** Forgets the conversation. */
  reset(): void {
    this.#assertIdle();
    this.#history = [];
  }

  /** Runs one prompt to the end and returns how it ended. Never throws for run failures. */
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
    return this.#stream(this.#toMessage(prompt), options);
  }

  /**
   * Continues a persisted conversation that stopped mid-run (a crash, a kill): finishes the
   * interrupted turn without running a non-idempotent tool twice, then lets the model carry on if
   * the last message awaits an answer. Resolves to undefined when there was nothing to resume.
   */
  async resume(options: RunOptions = {}): Promise<RunResult | undefined> {
    let result: RunResult | undefined;
    for await (const event of this.#stream(undefined, options)) {
      if (event.type === 'run-end') result = event.result;
    }
    return result;
  }

  /** Loads the session's history (once); the first run does it on its own. */
  async load(): Promise<readonly Message[]> {
    if (this.#session && !this.#loaded) {
      this.#history = await this.#session.load(undefined);
      this.#loaded = true;
    }
    return this.history;
  }

  async *#stream(
    message: Message | undefined,
    options: RunOptions,
  ): AsyncGenerator<AgentEvent, void, void> {
    assertOptions(options, ['signal', 'limits'], 'options');
    if (options.limits !== undefined) validateLimits(options.limits, 'options.limits');
    this.#assertIdle();
    this.#running = true;
    const session = this.#session;
    let settled = false;
    try {
      if (session) {
        if (!this.#loaded) {
          this.#history = await session.load(
            message ? messageText(message).slice(0, 80) : undefined,
          );
          this.#loaded = true;
        }
        yield* this.#recover(session, options.signal);
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
      const loop = runLoop({
        provider: this.#options.provider,
        model: this.#options.model,
        system: this.#options.system,
        history: this.#history,
        tools: this.#executor,
        limits: mergeLimits(this.#options.limits, options.limits),
        signal: options.signal,
        tracer: this.#options.tracer,
        pricing: this.#options.pricing,
        maxOutputTokens: this.#options.maxOutputTokens,
        temperature: this.#options.temperature,
        clock: this.#options.clock,
        hooks: session?.hooks(),
        // However the run ends (even if the caller stops iterating), keep its valid history.
        onSettled: (history) => {
          this.#history = [...history];
        },
      });
      for await (const event of loop) {
        if (event.type === 'run-end' && session) {
          settled = true;
          yield { type: 'run-end', result: await this.#commitRest(session, event.result) };
        } else {
          yield event;
        }
      }
    } finally {
      // A consumer that stopped early still leaves a committed, valid history behind.
      if (session && !settled) await session.commitThrough(this.#history).catch(() => {});
      this.#running = false;
    }
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
    const pending = await session.pendingTurn();
    if (!pending) return;
    const plan = planRecovery(pending, this.#isIdempotent);
    const results = new Map<string, ToolResultBlock>();
    const toRun: ToolUseBlock[] = [];
    for (const action of plan) {
      if (action.kind === 'run') toRun.push(action.call);
      else results.set(action.result.toolUseId, action.result);
    }
    if (toRun.length > 0 && this.#executor) {
      const hooks = session.hooks();
      const yieldQueue: AgentEvent[] = [];
      const context = {
        signal: signal ?? new AbortController().signal,
        hooks: {
          around: async (call: ToolUseBlock, execute: () => Promise<ToolOutcome>) => {
            yieldQueue.push({ type: 'tool-execution-start', call });
            await hooks.toolStart?.(call);
            const outcome = await execute();
            await hooks.toolEnd?.(call, outcome.result);
            return outcome;
          },
        },
      };
      for await (const outcome of this.#executor.execute(toRun, context)) {
        yield* yieldQueue.splice(0);
        results.set(outcome.call.id, outcome.result);
        yield { type: 'tool-execution-end', outcome };
      }
    }
    const answered = toolUsesOf(pending.assistant).map(
      (call) => results.get(call.id) ?? toolResult(call.id, interruptedOutcomeText(call), true),
    );
    const turn: Message[] = [
      pending.assistant,
      { id: newMessageId(), role: 'user', content: answered },
    ];
    this.#history = [...this.#history, ...turn];
    await session.commitThrough(this.#history, { extra: { recovered: true } });
    yield {
      type: 'history-repair',
      repairs: [
        {
          kind: 'synthesized-result',
          messageId: pending.assistant.id,
          detail: `resumed an interrupted turn: ${toRun.length} call(s) run, ${plan.filter((action) => action.kind === 'interrupted').length} reported as interrupted`,
        },
      ],
    };
  }

  #toMessage(prompt: string | Message): Message {
    if (typeof prompt === 'string') {
      if (prompt.trim() === '') throw new ConfigError('prompt', 'expected a non-empty string');
      return userMessage(prompt);
    }
    if (
      prompt === null ||
      typeof prompt !== 'object' ||
      prompt.role !== 'user' ||
      !Array.isArray(prompt.content)
    ) {
      throw new ConfigError('prompt', 'expected a string or a user Message');
    }
    if (prompt.content.length === 0)
      throw new ConfigError('prompt.content', 'expected at least one block');
    return prompt;
  }

  #assertIdle(): void {
    if (this.#running)
      throw new HarnessError('This agent is already running; wait for the run to end');
  }
}
