import { ConfigError } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import type { CheckInput } from './input.js';

/** One leaf check that failed, with its tags (attribution reads `format`). */
export interface CheckFailure {
  /** The failed check's name, e.g. `contains("42")`. */
  readonly check: string;
  /** Why it failed, in one line. */
  readonly reason: string;
  /** The failed check's tags. */
  readonly tags: readonly string[];
}

/** A check's verdict. */
export interface CheckResult {
  /** Whether the answer is right. */
  readonly passed: boolean;
  /** One line saying why. */
  readonly reason: string;
  /** The leaf checks that failed (empty when it passed). */
  readonly failures: readonly CheckFailure[];
}

/**
 * A check grades a session's answer. It may declare *facts*: strings the right answer depends on
 * (`contains` declares its phrase), so attribution can tell that a fact the model missed was only
 * in compacted-away history. A check that throws is an eval failure, not a model failure.
 */
export interface Check {
  /** A readable name, e.g. `allOf(contains("42"), toolCalled("calculator"))`. */
  readonly name: string;
  /** Facts the right answer depends on. */
  readonly facts: readonly string[];
  /** Tags of this check, e.g. `format` for a check of the answer's shape. */
  readonly tags: readonly string[];
  /** Grades one session. May be async. */
  evaluate(input: CheckInput): CheckResult | Promise<CheckResult>;
}

/** Options every built-in check accepts. */
export interface CheckOptions {
  /** Tags of the check; `format` marks a check of the answer's shape (attributed to the prompt). */
  readonly tags?: readonly string[];
}

/** What a custom check's function may return: a verdict, or a boolean. */
export type CustomVerdict = boolean | { readonly passed: boolean; readonly reason?: string };

/** Options of `check`. */
export interface CustomCheckOptions extends CheckOptions {
  /** Facts the right answer depends on (see `Check.facts`). */
  readonly facts?: readonly string[];
}

/** Validates a string list option such as `tags` or `facts`. */
export function stringList(value: unknown, field: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new ConfigError(field, 'expected an array of non-empty strings');
  }
  return Object.freeze([...new Set(value as string[])]);
}

/** Validates the options shared by every built-in check and returns the tags. */
export function checkTags(
  options: unknown,
  known: readonly string[] = ['tags'],
): readonly string[] {
  if (options === undefined) return [];
  assertOptions(options, known, 'options');
  return stringList((options as CheckOptions).tags, 'options.tags');
}

/** A verdict for a leaf check: passed, or failed with itself as the only failure. */
export function leafResult(
  check: Pick<Check, 'name' | 'tags'>,
  passed: boolean,
  reason: string,
): CheckResult {
  return {
    passed,
    reason,
    failures: passed ? [] : [{ check: check.name, reason, tags: check.tags }],
  };
}

/** Throws `ConfigError` unless `value` is a `Check`. */
export function assertCheck(value: unknown, field: string): asserts value is Check {
  const candidate = value as Partial<Check> | null;
  if (
    candidate === null ||
    typeof candidate !== 'object' ||
    typeof candidate.name !== 'string' ||
    typeof candidate.evaluate !== 'function' ||
    !Array.isArray(candidate.facts) ||
    !Array.isArray(candidate.tags)
  ) {
    throw new ConfigError(field, 'expected a Check, e.g. contains("42") or check(name, fn)');
  }
}

/**
 * Runs `check` and validates what it returned: a malformed verdict from user code is reported as
 * the check's own failure (an eval error), never as a wrong answer.
 */
export async function runCheck(check: Check, input: CheckInput): Promise<CheckResult> {
  assertCheck(check, 'check');
  if (input === null || typeof input !== 'object' || typeof input.text !== 'string')
    throw new ConfigError('input', 'expected a CheckInput ({ text, runs, toolCalls })');
  const result: unknown = await check.evaluate(input);
  const verdict = result as Partial<CheckResult> | null;
  if (
    verdict === null ||
    typeof verdict !== 'object' ||
    typeof verdict.passed !== 'boolean' ||
    typeof verdict.reason !== 'string' ||
    !Array.isArray(verdict.failures)
  ) {
    throw new TypeError(`Check ${check.name} returned ${describe(result)}, not a CheckResult`);
  }
  return verdict as CheckResult;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object without passed/reason/failures';
  return typeof value;
}

/**
 * A custom check from a function of the session. The function returns a boolean or
 * `{ passed, reason }`; throwing (or returning anything else) is an eval failure.
 * @example
 * const short = check('short answer', ({ text }) => text.length < 200, { tags: ['format'] });
 */
export function check(
  name: string,
  fn: (input: CheckInput) => CustomVerdict | Promise<CustomVerdict>,
  options?: CustomCheckOptions,
): Check {
  if (typeof name !== 'string' || name.trim() === '')
    throw new ConfigError('name', 'expected a non-empty string');
  if (typeof fn !== 'function') throw new ConfigError('fn', 'expected a function');
  const tags = checkTags(options, ['tags', 'facts']);
  const facts = stringList(options?.facts, 'options.facts');
  const self: Check = {
    name,
    facts,
    tags,
    async evaluate(input: CheckInput): Promise<CheckResult> {
      const verdict: unknown = await fn(input);
      if (typeof verdict === 'boolean')
        return leafResult(self, verdict, verdict ? 'passed' : 'failed');
      const object = verdict as { passed?: unknown; reason?: unknown } | null;
      if (object === null || typeof object !== 'object' || typeof object.passed !== 'boolean') {
        throw new TypeError(`Check ${name} returned ${describe(verdict)}, not a boolean verdict`);
      }
      const reason =
        typeof object.reason === 'string' ? object.reason : object.passed ? 'passed' : 'failed';
      return leafResult(self, object.passed, reason);
    },
  };
  return Object.freeze(self);
}
