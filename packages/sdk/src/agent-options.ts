import {
  type Clock,
  type CompactionOptions,
  ConfigError,
  HarnessError,
  type Limits,
  type Message,
  newMessageId,
  type Permission,
  type PermissionPolicy,
  type PricingTable,
  type Provider,
  type ResolvedLoopSettings,
  type RunResult,
  resolveLoopOptions,
  type StepRunner,
  type Tool,
  type ToolExecutor,
  type Tracer,
  ZERO_USAGE,
} from '@mh/core';
import {
  assertCollaborators,
  assertImplements,
  assertMessages,
  assertOptions,
} from '@mh/core/internal';
import { type ApproveCallback, PolicyToolExecutor, ToolRegistry } from '@mh/tools/zod-free';
import type { FencingOptions } from './agent-fencing.js';
import type { Decision } from './agent-interrupts.js';
import type { RunOutput } from './run-output.js';
import type { AgentSession } from './session-binding.js';

/** Who may run `write` and `exec` tools. `read` tools are always allowed by the default policy. */
export interface AgentPermissions {
  /** Permissions granted outright, e.g. `['write']`. */
  readonly grants?: readonly Permission[];
  /** Asked for each call whose permission is not granted; true allows it. */
  readonly approve?: ApproveCallback;
  /** A policy replacing the default one (grants and approve are then ignored). */
  readonly policy?: PermissionPolicy;
  /**
   * A call the policy would ask about, with no `approve` to ask: `'deny'` (the default) refuses
   * it; `'interrupt'` ends the run `interrupted` with the call waiting in `result.interrupts`
   * (reason `write_file needs the write permission`), for `agent.resume({ decisions })`.
   */
  readonly onAsk?: 'deny' | 'interrupt';
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
  readonly tools?: readonly Tool[] | ToolRegistry | ToolExecutor;
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
  /**
   * Fencing of tool results (the prompt-injection defence), on by default: results of tools are
   * fenced as untrusted data between lines carrying a random boundary token, and a rule appended
   * to the system prompt says nothing inside a fence is an instruction. `false` turns it off;
   * `{ boundary }` fixes the token (needed for byte-identical replays).
   *
   * With a session the boundary is kept per session: each checkpoint records it, and an agent
   * with a random boundary that loads the session (a restart, `resume`, another worker, another
   * branch) adopts the recorded one, so the rule and every stored result name the same token and
   * the system prompt stays cacheable. A given boundary wins: stored results fenced with another
   * recorded token are re-fenced with it in the agent's view; the store keeps what was sent. With
   * fencing off, stored fences are left as they are (still labelled untrusted data). Many
   * sessions share one cached system prompt only with a fixed boundary: take it from
   * configuration as a secret, never a constant in code, never shown to content authors.
   *
   * `injectionDefense` is the deprecated name of this option and is still accepted; giving both
   * is a `ConfigError` (field `fencing`) that names both.
   */
  readonly fencing?: boolean | FencingOptions;
  /**
   * @deprecated Use `fencing` (same values, same behaviour); this name goes away in the next
   * minor version. Giving both is a `ConfigError` naming both fields.
   */
  readonly injectionDefense?: boolean | FencingOptions;
  /**
   * Keeps long conversations inside the model's context window: trim old tool output, then
   * summarise old turns (exact identifiers kept), never separating a tool call from its result.
   * On by default when the model's window is known; `false` turns it off; an object tunes it
   * (`contextWindow`, `threshold`, `keepRecentTokens`, `trimToolResultTokens`, `summarizer`, …).
   */
  readonly compaction?: false | CompactionOptions;
  /**
   * A secret (at least 32 bytes, from configuration) that signs each interrupt with HMAC-SHA-256
   * over the session, branch, head, call id, tool and arguments. `resume` then refuses a decision
   * without the interrupt's `token`, or with a forged, replayed or stale one.
   */
  readonly approvalKey?: string | Uint8Array;
  /**
   * Makes every run durable on an engine's steps (`@mh/durable-dbos` sets it, inside a workflow):
   * each model call, tool call and session store call is a step, and new ids come from the
   * engine, so a run replayed after a crash takes the same path. Leave it unset otherwise.
   */
  readonly steps?: StepRunner;
}

/** Options of `agent.resume`: a run's options and a person's decisions on the waiting calls. */
export interface ResumeOptions extends RunOptions {
  /** One decision per call in `result.interrupts` (see `Decision`). */
  readonly decisions?: readonly Decision[];
}

/** Per-run options. */
export interface RunOptions {
  /** Cancels the run; it ends with status `cancelled` and a valid history. */
  readonly signal?: AbortSignal;
  /** Guards for this run, merged over the agent's. */
  readonly limits?: Limits;
  /**
   * Asks for a typed final answer: a zod schema (or a `ToolSchema`, or either with options such
   * as `maxRetries`). `result.output` then holds the validated value; see `TypedRunResult`.
   */
  readonly output?: RunOutput<unknown>;
}

export const OPTION_KEYS: readonly string[] = [
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
  'fencing',
  'injectionDefense',
  'compaction',
  'approvalKey',
  'steps',
];

/** The result of a run that could not start (its prompt could not be committed). */
export function failedBeforeStart(error: unknown, history: readonly Message[]): RunResult {
  return runWithoutTurns(history, {
    status: 'error',
    error: error instanceof Error ? error : new HarnessError(String(error)),
  });
}

/** The result of a run that made no model call: `fields` over an empty run on `history`. */
export function runWithoutTurns(
  history: readonly Message[],
  fields: Partial<RunResult> & Pick<RunResult, 'status'>,
): RunResult {
  return {
    runId: newMessageId('run'),
    text: '',
    turns: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
    durationMs: 0,
    // A copy: the history is the conversation's own array, which later runs append to.
    messages: history.slice(),
    newMessages: [],
    repairs: [],
    compactions: [],
    ...fields,
  };
}

/**
 * Checks the Agent's options, each mistake a `ConfigError` naming its field, and resolves the
 * loop's settings among them once (`resolveLoopOptions`: the provider, model, system, limits,
 * sampling, tracer, prices and clock), so no run checks them again.
 */
export function checkAgentOptions(options: AgentOptions): ResolvedLoopSettings {
  if (options === null || typeof options !== 'object')
    throw new ConfigError('options', 'expected an object');
  assertOptions(options, OPTION_KEYS, '');
  assertCollaborators(options);
  const settings = resolveLoopOptions({
    provider: options.provider,
    model: options.model,
    system: options.system,
    limits: options.limits,
    tracer: options.tracer,
    pricing: options.pricing,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    clock: options.clock,
  });
  if (options.history !== undefined) assertMessages(options.history, 'history');
  checkPermissions(options.permissions);
  if (options.session !== undefined && options.history !== undefined) {
    throw new ConfigError(
      'history',
      'give either history or session: a session loads its own history',
    );
  }
  assertImplements(options.steps, ['step', 'newId'], 'steps', 'a StepRunner');
  if (options.steps !== undefined) checkDurable(options);
  return settings;
}

/**
 * What a durable agent (`steps`) cannot have: a wall-clock timeout (a replay returns recorded
 * steps at once, so it would time out elsewhere) and a fence boundary drawn at random (a replay
 * would fence with another one than the recorded results).
 */
function checkDurable(options: AgentOptions): void {
  if (options.limits?.timeoutMs !== undefined)
    throw new ConfigError(
      'limits.timeoutMs',
      "a durable agent (steps) takes no wall-clock timeout: a replay would time out at another point; use the engine's workflow timeout",
    );
  const fencing = options.fencing ?? options.injectionDefense;
  const fixed =
    fencing === false || (typeof fencing === 'object' && fencing?.boundary !== undefined);
  if (options.tools !== undefined && !fixed)
    throw new ConfigError(
      options.fencing === undefined && options.injectionDefense !== undefined
        ? 'injectionDefense'
        : 'fencing',
      "a durable agent (steps) needs a fence drawn once for the run: pass { boundary } (durable-dbos's factory context has one), or false",
    );
}

function isExecutor(value: unknown): value is ToolExecutor {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolExecutor).execute === 'function'
  );
}

const GRANTABLE = new Set(['read', 'write', 'exec']);

export function checkPermissions(permissions: AgentPermissions | undefined): AgentPermissions {
  if (permissions === undefined) return {};
  if (typeof permissions !== 'object' || permissions === null) {
    throw new ConfigError('permissions', 'expected an object');
  }
  assertOptions(permissions, ['grants', 'approve', 'policy', 'onAsk'], 'permissions');
  const { grants, approve, policy, onAsk } = permissions;
  if (onAsk !== undefined && onAsk !== 'deny' && onAsk !== 'interrupt') {
    throw new ConfigError('permissions.onAsk', "expected 'deny' or 'interrupt'");
  }
  if (onAsk === 'interrupt' && approve !== undefined) {
    throw new ConfigError('permissions.onAsk', "give either approve or onAsk: 'interrupt'");
  }
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

/** The executor and how to tell whether a tool's call may safely run again. */
export interface AgentTools {
  readonly executor: ToolExecutor | undefined;
  /**
   * Whether a call of this tool may run again after a crash: the tool is idempotent, or only
   * reads (its permission is `read`, so it has no side effect to repeat) and does not say
   * `idempotent: false`. Such a call is not claimed or journaled call by call (recovery runs it
   * again), which saves two durable writes.
   */
  readonly mayRepeat: (toolName: string) => boolean;
}

export function buildExecutor(options: AgentOptions): AgentTools {
  const tools = options.tools;
  if (tools === undefined) return { executor: undefined, mayRepeat: () => false };
  // A foreign executor does not say what its tools do: none is assumed safe to repeat.
  if (isExecutor(tools)) return { executor: tools, mayRepeat: () => false };
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
  const executor = new PolicyToolExecutor({
    registry,
    policy: permissions.policy,
    grants: permissions.grants,
    approve: permissions.approve,
    ...(permissions.onAsk !== undefined ? { onAsk: permissions.onAsk } : {}),
  });
  const mayRepeat = (name: string): boolean => {
    const tool = registry.get(name);
    // A read-only tool may run again unless it says it must not (`idempotent: false`, which an
    // MCP tool says unless its server vouches for both read-only and idempotent).
    if (tool === undefined || tool.idempotent === false) return false;
    return tool.idempotent === true || tool.permission === 'read';
  };
  return { executor, mayRepeat };
}
