import type { ContextMeterState } from '../compaction/context-meter.js';
import type { CompactionOptions } from '../compaction/options.js';
import type { CompactionEvent } from '../compaction/record.js';
import { ConfigError } from '../errors.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import { assertMessages } from '../messages/shape.js';
import type { Usage } from '../messages/usage.js';
import type { Clock } from '../ports/clock.js';
import type { Provider } from '../ports/provider.js';
import type { ToolExecutor } from '../ports/tool.js';
import type { Span, Tracer } from '../ports/tracer.js';
import { defaultPricing, type PricingTable } from '../pricing/prices.js';
import { assertCollaborators, assertOptions, shownValue } from '../support/option-checks.js';
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
}

const LOOP_OPTION_KEYS = [
  'provider',
  'model',
  'system',
  'history',
  'tools',
  'limits',
  'signal',
  'tracer',
  'parentSpan',
  'clock',
  'pricing',
  'maxOutputTokens',
  'temperature',
  'stopSequences',
  'runId',
  'onSettled',
  'hooks',
  'compaction',
];

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
 * Throws `ConfigError` naming the first bad field; returns the validated limits. The first
 * `settledMessages` of the history were checked by an earlier run (see settled-histories.ts).
 */
export function checkLoopOptions(options: LoopOptions, settledMessages = 0): Limits {
  if (options === null || typeof options !== 'object') {
    throw new ConfigError('options', 'expected an object');
  }
  assertOptions(options, LOOP_OPTION_KEYS, '');
  assertCollaborators(options);
  if (!options.provider || typeof options.provider.stream !== 'function') {
    throw new ConfigError('provider', 'expected a Provider with a stream() method');
  }
  if (typeof options.model !== 'string' || options.model.length === 0) {
    throw new ConfigError('model', 'expected a non-empty string');
  }
  if (options.system !== undefined && typeof options.system !== 'string') {
    throw new ConfigError('system', 'expected a string');
  }
  assertMessages(options.history, 'history', settledMessages);
  if (options.tools !== undefined && typeof options.tools?.execute !== 'function') {
    throw new ConfigError('tools', 'expected a ToolExecutor');
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new ConfigError('signal', 'expected an AbortSignal');
  }
  checkSampling(options);
  if (
    options.stopSequences !== undefined &&
    (!Array.isArray(options.stopSequences) ||
      options.stopSequences.some((sequence) => typeof sequence !== 'string'))
  ) {
    throw new ConfigError('stopSequences', 'expected an array of strings');
  }
  if (options.hooks !== undefined) {
    assertOptions(
      options.hooks,
      ['beforeTools', 'toolStart', 'toolEnd', 'turnCommitted', 'compacted'],
      'hooks',
    );
  }
  if (options.onSettled !== undefined && typeof options.onSettled !== 'function') {
    throw new ConfigError('onSettled', 'expected a function');
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
  return limits;
}
