import type { ContextMeterState } from '../compaction/context-meter.js';
import {
  type CompactionOptions,
  type ResolvedCompaction,
  resolveCompaction,
} from '../compaction/options.js';
import type { CompactionEvent } from '../compaction/record.js';
import { ConfigError } from '../errors.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import { assertMessages } from '../messages/shape.js';
import type { Usage } from '../messages/usage.js';
import type { OutputOptions } from '../output/typed-output.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { Provider } from '../ports/provider.js';
import type { StepRunner } from '../ports/step-runner.js';
import type { AskedQuestion } from '../ports/tool.js';
import type { ToolExecutor } from '../ports/tool-executor.js';
import { noopTracer, type Span, type Tracer } from '../ports/tracer.js';
import { defaultPricing, type PricingTable } from '../pricing/prices.js';
import {
  assertCollaborators,
  assertImplements,
  assertOptions,
  shownValue,
} from '../support/option-checks.js';
import { type Limits, validateLimits } from './limits.js';
import type { RunStatus } from './run-result.js';

/** A committed turn, as `LoopHooks.turnCommitted` receives it. */
export interface CommittedTurn {
  /** The turn number within the run (1-based). */
  readonly turn: number;
  /** The messages the turn appended: the assistant message, then the user message of results. */
  readonly messages: readonly Message[];
  /** Tokens of the turn's model call (discarded retries included). */
  readonly usage: Usage;
  /** Cost of the turn in USD. */
  readonly costUsd: number;
  /** The model that answered. */
  readonly model: string;
  /** The turn's context measurement (with compaction on): kept so a resumed meter need not guess. */
  readonly context?: ContextMeterState;
}

/**
 * Persistence hooks, awaited in order so what they write is durable before the loop goes on; a
 * hook that throws ends the run with status `error`. A session store journals and commits here.
 */
export interface LoopHooks {
  /** An assistant message whose tool calls are about to run (journal it before any runs). */
  beforeTools?(assistant: Message): Promise<void>;
  /** One of its calls is about to run. */
  toolStart?(call: ToolUseBlock): Promise<void>;
  /** That call finished with `result`. */
  toolEnd?(call: ToolUseBlock, result: ToolResultBlock): Promise<void>;
  /**
   * That call stopped on a question (`ToolRunContext.interrupt`) with no answer: it has no result
   * and runs again, from the start, once answered (a session journals the question).
   */
  toolQuestion?(call: ToolUseBlock, question: AskedQuestion): Promise<void>;
  /** A turn completed: its assistant message and all its results are in the history. */
  turnCommitted?(turn: CommittedTurn): Promise<void>;
  /** A compaction changed or tried to change the history (`history` is the history after it). */
  compacted?(events: readonly CompactionEvent[], history: readonly Message[]): Promise<void>;
}

/** Everything one run of the loop needs. */
export interface LoopOptions {
  /** The model provider. */
  readonly provider: Provider;
  /** Model id sent with every request. */
  readonly model: string;
  /** System prompt. */
  readonly system?: string;
  /** History to continue, ending with the new user message. Repaired first if it is invalid. */
  readonly history: readonly Message[];
  /** Runs tool calls; without it every call is answered "unknown tool". */
  readonly tools?: ToolExecutor;
  /** Guards of this run. */
  readonly limits?: Limits;
  /** Cancels the run; it then ends with status `cancelled` and a valid history. */
  readonly signal?: AbortSignal;
  /** Receives the run's spans (default: none). */
  readonly tracer?: Tracer;
  /** Parent of the run span (an enclosing span of the caller's). */
  readonly parentSpan?: Span;
  /** Time source for the hard timeout (default: the system clock). */
  readonly clock?: Clock;
  /** Prices used for cost and the cost guard (default: the built-in table). */
  readonly pricing?: PricingTable;
  /** Cap on generated tokens per model call. */
  readonly maxOutputTokens?: number;
  /** Sampling temperature. */
  readonly temperature?: number;
  /** Stop sequences. */
  readonly stopSequences?: readonly string[];
  /** Run id (default: a new one). */
  readonly runId?: string;
  /**
   * Called once with the run's final, valid history and how the run ended, however it ends —
   * including when the consumer stops iterating early (`cancelled`), when no `run-end` is yielded.
   */
  readonly onSettled?: (history: readonly Message[], status: RunStatus) => void;
  /** Persistence hooks (journal and commit). */
  readonly hooks?: LoopHooks;
  /** Keeps the history inside the model's context window (default: no compaction). */
  readonly compaction?: CompactionOptions;
  /**
   * Asks for a typed final answer: `RunResult.output` holds it, validated by its schema. A wrong
   * answer goes back to the model with its problems (`maxRetries` times); then the run ends with
   * status `error` and an `OutputInvalidError`.
   */
  readonly output?: OutputOptions;
  /**
   * Makes the run durable: each model call, each tool call and each id goes through this engine's
   * step runner (DBOS, through `@mh/durable-dbos`), so a run replayed after a crash takes the same
   * path without paying for a finished model call again or running a non-idempotent tool twice.
   * Absent (the default), everything is called directly.
   */
  readonly steps?: StepRunner;
}

/**
 * A run of settings checked once by `resolveLoopOptions` (an agent's, say): the run checks only
 * its own options. The settings (provider, model, system, tools, limits, tracer, clock, pricing,
 * sampling, stop sequences, compaction) may not be given again beside them.
 */
export interface ResolvedLoopOptions extends Pick<LoopOptions, (typeof RUN_KEYS)[number]> {
  readonly resolved: ResolvedLoopSettings;
}

/** The options that stay the same from run to run: settings, resolved once. */
const SETTING_KEYS = [
  'provider',
  'model',
  'system',
  'tools',
  'limits',
  'tracer',
  'clock',
  'pricing',
  'maxOutputTokens',
  'temperature',
  'stopSequences',
  'compaction',
] as const;

/** The options that are a run's own. */
const RUN_KEYS = [
  'history',
  'signal',
  'parentSpan',
  'runId',
  'onSettled',
  'hooks',
  'output',
  'steps',
] as const;

/** The loop options that stay the same from run to run (see `resolveLoopOptions`). */
export type LoopSettings = Pick<LoopOptions, (typeof SETTING_KEYS)[number]>;

/** Loop settings checked once, with their defaults filled in (made by `resolveLoopOptions`). */
export interface ResolvedLoopSettings extends LoopSettings {
  readonly limits: Limits;
  readonly clock: Clock;
  readonly tracer: Tracer;
  readonly pricing: PricingTable;
  /** The compaction settings, resolved against the model (absent: no compaction). */
  readonly resolvedCompaction: ResolvedCompaction | undefined;
}

/** Settings made by `resolveLoopOptions` (so a run can trust them without checking again). */
const resolvedSettings = new WeakSet<object>();

/**
 * Checks the settings of a loop once and fills in their defaults: the clock, the tracer, the
 * prices, the limits and the compaction. A run given them (`LoopOptions.resolved`) checks only
 * what is its own, so an agent running many times checks its settings once, and each mistake has
 * one message. With `base`, only the settings given are checked, over the base's.
 */
export function resolveLoopOptions(settings: LoopSettings): ResolvedLoopSettings;
export function resolveLoopOptions(
  changes: Partial<LoopSettings>,
  base: ResolvedLoopSettings,
): ResolvedLoopSettings;
export function resolveLoopOptions(
  settings: Partial<LoopSettings>,
  base?: ResolvedLoopSettings,
): ResolvedLoopSettings {
  if (settings === null || typeof settings !== 'object') {
    throw new ConfigError('options', 'expected an object');
  }
  if (base !== undefined && !resolvedSettings.has(base)) {
    throw new ConfigError('base', 'expected settings made by resolveLoopOptions');
  }
  assertOptions(settings, SETTING_KEYS, '');
  assertCollaborators(settings);
  const has = (key: (typeof SETTING_KEYS)[number]): boolean =>
    base === undefined || Object.hasOwn(settings, key);
  const merged = { ...base, ...settings } as LoopSettings;
  if (has('provider') && (!merged.provider || typeof merged.provider.stream !== 'function')) {
    throw new ConfigError('provider', 'expected a Provider, e.g. fake() or anthropic()');
  }
  if (has('model') && (typeof merged.model !== 'string' || merged.model.trim() === '')) {
    throw new ConfigError('model', 'expected a non-empty model id');
  }
  if (has('system') && merged.system !== undefined && typeof merged.system !== 'string') {
    throw new ConfigError('system', 'expected a string');
  }
  if (has('tools') && merged.tools !== undefined && typeof merged.tools?.execute !== 'function') {
    throw new ConfigError('tools', 'expected a ToolExecutor');
  }
  checkSampling(base === undefined ? merged : settings);
  if (
    has('stopSequences') &&
    merged.stopSequences !== undefined &&
    (!Array.isArray(merged.stopSequences) ||
      merged.stopSequences.some((sequence) => typeof sequence !== 'string'))
  ) {
    throw new ConfigError('stopSequences', 'expected an array of strings');
  }
  // Copies, frozen: what was checked is what runs, whatever the caller changes later.
  const limits = has('limits')
    ? Object.freeze({ ...validateLimits(merged.limits) })
    : (base as ResolvedLoopSettings).limits;
  const pricing = merged.pricing ?? defaultPricing;
  checkCostPrice(limits, pricing, merged.model as string, 'limits');
  const resolvedCompaction =
    has('compaction') || has('model')
      ? merged.compaction && resolveCompaction(merged.compaction, merged.model as string)
      : base?.resolvedCompaction;
  const resolved: ResolvedLoopSettings = Object.freeze({
    ...merged,
    stopSequences: merged.stopSequences && Object.freeze([...merged.stopSequences]),
    compaction: merged.compaction && Object.freeze({ ...merged.compaction }),
    limits,
    clock: merged.clock ?? systemClock,
    tracer: merged.tracer ?? noopTracer,
    pricing,
    resolvedCompaction,
  });
  resolvedSettings.add(resolved);
  return resolved;
}

/**
 * The settings with a run's own limits over theirs (a key set to `undefined` keeps the
 * settings' value). Only `limits` is checked, its mistakes named under `field`.
 */
export function withRunLimits(
  settings: ResolvedLoopSettings,
  limits: Limits | undefined,
  field: string,
): ResolvedLoopSettings {
  if (!resolvedSettings.has(settings)) {
    throw new ConfigError('settings', 'expected settings made by resolveLoopOptions');
  }
  if (limits === undefined) return settings;
  const own = validateLimits(limits, field);
  checkCostPrice(own, settings.pricing, settings.model, field);
  const merged: Record<string, number | undefined> = { ...settings.limits };
  for (const [key, value] of Object.entries(own)) if (value !== undefined) merged[key] = value;
  const resolved: ResolvedLoopSettings = Object.freeze({
    ...settings,
    limits: Object.freeze(merged) as Limits,
  });
  resolvedSettings.add(resolved);
  return resolved;
}

/** Refuses a cost limit on a model whose price is unknown: the guard could never trip. */
function checkCostPrice(limits: Limits, pricing: PricingTable, model: string, field: string): void {
  if (limits.maxCostUsd === undefined || pricing.lookup(model) !== undefined) return;
  throw new ConfigError(
    `${field}.maxCostUsd`,
    `no price is known for model ${model}; add one with pricing`,
  );
}

/**
 * Throws `ConfigError` when `maxOutputTokens` is not a positive integer or `temperature` not a
 * number >= 0 (each may be absent). Shared by the loop and the Agent, which checks early.
 */
export function checkSampling(options: {
  readonly maxOutputTokens?: unknown;
  readonly temperature?: unknown;
}): void {
  if (options.maxOutputTokens !== undefined && !isPositiveInteger(options.maxOutputTokens)) {
    throw new ConfigError(
      'maxOutputTokens',
      `expected a positive integer, got ${shownValue(options.maxOutputTokens)}`,
    );
  }
  const temperature = options.temperature;
  if (
    temperature !== undefined &&
    (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature < 0)
  ) {
    throw new ConfigError('temperature', `expected a number >= 0, got ${shownValue(temperature)}`);
  }
}

function isPositiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/**
 * Checks a run's options, throwing `ConfigError` naming the first bad field, and returns its
 * resolved settings: `resolved` as given (settings checked once before), or the settings of
 * `options` resolved now. The first `settledMessages` of the history were checked by an earlier
 * run (see settled-histories.ts).
 */
export function checkLoopOptions(
  options: LoopOptions | ResolvedLoopOptions,
  settledMessages = 0,
): ResolvedLoopSettings {
  if (options === null || typeof options !== 'object') {
    throw new ConfigError('options', 'expected an object');
  }
  assertOptions(options, [...SETTING_KEYS, ...RUN_KEYS, 'resolved'], '');
  const given = options as Partial<LoopOptions> & { readonly resolved?: unknown };
  let settings: ResolvedLoopSettings;
  if (given.resolved !== undefined) {
    if (typeof given.resolved !== 'object' || !resolvedSettings.has(given.resolved as object)) {
      throw new ConfigError('resolved', 'expected settings made by resolveLoopOptions');
    }
    const twice = SETTING_KEYS.find((key) => given[key] !== undefined);
    if (twice !== undefined) {
      throw new ConfigError(twice, 'already given in the resolved settings: give it there');
    }
    settings = given.resolved as ResolvedLoopSettings;
  } else {
    const own: Record<string, unknown> = {};
    for (const key of SETTING_KEYS) if (given[key] !== undefined) own[key] = given[key];
    settings = resolveLoopOptions(own as unknown as LoopSettings);
  }
  assertMessages(options.history, 'history', settledMessages);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new ConfigError('signal', 'expected an AbortSignal');
  }
  if (options.hooks !== undefined) {
    assertOptions(
      options.hooks,
      ['beforeTools', 'toolStart', 'toolEnd', 'toolQuestion', 'turnCommitted', 'compacted'],
      'hooks',
    );
  }
  assertImplements(options.steps, ['step', 'newId'], 'steps', 'a StepRunner');
  if (options.onSettled !== undefined && typeof options.onSettled !== 'function') {
    throw new ConfigError('onSettled', 'expected a function');
  }
  return settings;
}
