import { ConfigError } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import { type Check, type CheckOptions, type CheckResult, checkTags, leafResult } from './check.js';
import type { CheckInput, SessionToolCall } from './input.js';

/** Options of `toolCalled`. */
export interface ToolCalledOptions extends CheckOptions {
  /**
   * The arguments the call must have: an object whose every key must equal (deeply) the call's
   * argument of that name (other arguments may be present), or a predicate of the arguments.
   */
  readonly input?: Readonly<Record<string, unknown>> | ((input: unknown) => boolean);
  /** Count only calls whose result was not an error (default false: any call counts). */
  readonly succeeded?: boolean;
  /** Minimum number of matching calls (default 1). */
  readonly times?: number;
}

function subsetMatches(expected: Readonly<Record<string, unknown>>, actual: unknown): boolean {
  if (actual === null || typeof actual !== 'object') return false;
  const record = actual as Record<string, unknown>;
  return Object.entries(expected).every(
    ([key, value]) => key in record && canonicalJson(record[key]) === canonicalJson(value),
  );
}

/**
 * Passes when the session called tool `name` (at least `times` times, with matching arguments,
 * successfully when `succeeded`).
 * @example
 * toolCalled('read_file', { input: { path: 'orders.csv' }, succeeded: true })
 */
export function toolCalled(name: string, options?: ToolCalledOptions): Check {
  if (typeof name !== 'string' || name === '')
    throw new ConfigError('name', 'expected a tool name');
  const tags = checkTags(options, ['tags', 'input', 'succeeded', 'times']);
  const input = options?.input;
  if (
    input !== undefined &&
    typeof input !== 'function' &&
    (input === null || typeof input !== 'object' || Array.isArray(input))
  ) {
    throw new ConfigError('options.input', 'expected an object of arguments or a predicate');
  }
  const succeeded = options?.succeeded ?? false;
  if (typeof succeeded !== 'boolean')
    throw new ConfigError('options.succeeded', 'expected a boolean');
  const times = options?.times ?? 1;
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 1)
    throw new ConfigError('options.times', 'expected a positive integer');
  const matchesCall = (call: SessionToolCall): boolean =>
    call.name === name &&
    (!succeeded || !call.isError) &&
    (input === undefined ||
      (typeof input === 'function'
        ? input(call.input) === true
        : subsetMatches(input, call.input)));
  const what = `${name}${input !== undefined && typeof input !== 'function' ? ` with ${canonicalJson(input)}` : ''}`;
  const self: Check = Object.freeze({
    name: `toolCalled(${JSON.stringify(name)})`,
    facts: Object.freeze([]),
    tags,
    evaluate({ toolCalls }: CheckInput): CheckResult {
      const count = toolCalls.filter(matchesCall).length;
      const passed = count >= times;
      const called = [...new Set(toolCalls.map((call) => call.name))];
      return leafResult(
        self,
        passed,
        passed
          ? `${what} called ${count} time(s)`
          : `${what} called ${count} time(s)${succeeded ? ' successfully' : ''}, expected ${times}; called: ${called.join(', ') || 'no tools'}`,
      );
    },
  });
  return self;
}
