import { ConfigError } from '../errors.js';
import type { ToolUseBlock } from '../messages/message.js';
import { canonicalJson } from '../support/canonical-json.js';
import { shownValue } from '../support/option-checks.js';

/** Limits of one run. Absent fields are unlimited, except `maxTurns` (default 50). */
export interface Limits {
  /** Most model calls in one run (default 50). After the last one, pending tool calls still run. */
  readonly maxTurns?: number;
  /**
   * Token budget of a run (input + output + cache); the run stops once usage reaches it. Checked
   * after each turn: the last turn (its model call, and a compaction summary call before it) can
   * take usage past the budget.
   */
  readonly maxTokens?: number;
  /**
   * Cost budget of a run in USD; the run stops once cost reaches it. Needs a price for the model.
   * Checked after each turn, as a call's cost is known only once it ends: the last turn (its model
   * call, and a compaction summary call before it) can take the cost past the budget.
   */
  readonly maxCostUsd?: number;
  /** Most times one tool may be called with the same (canonicalised) arguments in a run. */
  readonly maxRepeatedCalls?: number;
  /** Hard wall-clock limit of a run in milliseconds, including hung tools and stalled streams. */
  readonly timeoutMs?: number;
}

/** The longest timer Node can arm (2^31 - 1 ms); a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Throws `ConfigError` naming `field` when `ms` is longer than a Node timer can wait
 * (`MAX_TIMEOUT_MS`): Node arms such a timer for 1 ms instead, so the wait would end at once. Every
 * user-given duration that becomes a timer goes through it. `Infinity` is rejected too; an option
 * where it means "never" checks for it first.
 */
export function assertTimerMs(field: string, ms: number): void {
  if (ms > MAX_TIMEOUT_MS) {
    throw new ConfigError(
      field,
      `expected at most ${MAX_TIMEOUT_MS} ms (about 24.8 days, the longest timer Node can arm), got ${ms}`,
    );
  }
}

/** The default `maxTurns`. */
export const DEFAULT_MAX_TURNS = 50;

/** Throws `ConfigError` naming the field when a limit is not a positive number (or integer). */
export function validateLimits(limits: unknown, field = 'limits'): Limits {
  if (limits === undefined) return {};
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits)) {
    throw new ConfigError(field, 'expected an object');
  }
  const record = limits as Record<string, unknown>;
  const integers = ['maxTurns', 'maxTokens', 'maxRepeatedCalls'];
  const numbers = ['maxCostUsd', 'timeoutMs'];
  for (const key of Object.keys(record)) {
    if (!integers.includes(key) && !numbers.includes(key)) {
      throw new ConfigError(
        `${field}.${key}`,
        `unknown limit (known: ${[...integers, ...numbers].join(', ')})`,
      );
    }
    const value = record[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new ConfigError(
        `${field}.${key}`,
        `expected a positive number, got ${shownValue(value)}`,
      );
    }
    if (integers.includes(key) && !Number.isInteger(value)) {
      throw new ConfigError(
        `${field}.${key}`,
        `expected a positive integer, got ${shownValue(value)}`,
      );
    }
    if (key === 'timeoutMs') assertTimerMs(`${field}.${key}`, value);
  }
  return record as Limits;
}

/**
 * Counts identical calls (same tool, same arguments whatever their key order) within a run. A call
 * whose arguments could not be parsed (`rawInput` set, `input` a stand-in `{}`) is keyed on its raw
 * text: two different broken calls are different calls, and neither is the call with `{}`.
 */
export class RepeatedCallCounter {
  readonly #counts = new Map<string, number>();

  /** Counts one more call and returns how many times this exact call has now been made. */
  count(call: ToolUseBlock): number {
    const args =
      typeof call.rawInput === 'string'
        ? `raw\u0000${call.rawInput}`
        : `json\u0000${canonicalJson(call.input)}`;
    const key = `${call.name}\u0000${args}`;
    const next = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, next);
    return next;
  }
}
