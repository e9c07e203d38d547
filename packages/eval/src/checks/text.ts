import { ConfigError } from '@mh/core';
import {
  type Check,
  type CheckOptions,
  type CheckResult,
  checkTags,
  leafResult,
  stringList,
} from './check.js';
import type { CheckInput } from './input.js';

/** Options of `contains`. */
export interface ContainsOptions extends CheckOptions {
  /** Compare case-sensitively (default false). */
  readonly caseSensitive?: boolean;
}

/** Options of `matches`. */
export interface MatchesOptions extends CheckOptions {
  /** Facts the answer depends on (a pattern declares none by itself). */
  readonly facts?: readonly string[];
}

/** Shortens `text` for a failure reason. */
export function excerpt(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Passes when the final answer contains `phrase` (case-insensitive unless `caseSensitive`). The
 * phrase is declared as a fact.
 * @example
 * contains('ORD-1234')
 */
export function contains(phrase: string, options?: ContainsOptions): Check {
  if (typeof phrase !== 'string' || phrase === '')
    throw new ConfigError('phrase', 'expected a non-empty string');
  const tags = checkTags(options, ['tags', 'caseSensitive']);
  const caseSensitive = options?.caseSensitive ?? false;
  if (typeof caseSensitive !== 'boolean')
    throw new ConfigError('options.caseSensitive', 'expected a boolean');
  const needle = caseSensitive ? phrase : phrase.toLowerCase();
  const self: Check = Object.freeze({
    name: `contains(${JSON.stringify(phrase)})`,
    facts: Object.freeze([phrase]),
    tags,
    evaluate({ text }: CheckInput): CheckResult {
      const haystack = caseSensitive ? text : text.toLowerCase();
      const passed = haystack.includes(needle);
      return leafResult(
        self,
        passed,
        passed
          ? `the answer contains ${JSON.stringify(phrase)}`
          : `${JSON.stringify(phrase)} not in the answer: ${JSON.stringify(excerpt(text))}`,
      );
    },
  });
  return self;
}

/**
 * Passes when the final answer matches `pattern` (a RegExp, or a string compiled to one).
 * @example
 * matches(/^ANSWER: \d+$/m, { tags: ['format'] })
 */
export function matches(pattern: RegExp | string, options?: MatchesOptions): Check {
  let regex: RegExp;
  if (pattern instanceof RegExp) {
    // Without g/y a RegExp keeps no lastIndex, so repeated evaluations cannot interfere.
    regex = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  } else if (typeof pattern === 'string' && pattern !== '') {
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      throw new ConfigError('pattern', `not a valid regular expression: ${String(error)}`);
    }
  } else {
    throw new ConfigError('pattern', 'expected a RegExp or a non-empty string');
  }
  const tags = checkTags(options, ['tags', 'facts']);
  const facts = stringList(options?.facts, 'options.facts');
  const self: Check = Object.freeze({
    name: `matches(${String(regex)})`,
    facts,
    tags,
    evaluate({ text }: CheckInput): CheckResult {
      const passed = regex.test(text);
      return leafResult(
        self,
        passed,
        passed
          ? `the answer matches ${String(regex)}`
          : `the answer does not match ${String(regex)}: ${JSON.stringify(excerpt(text))}`,
      );
    },
  });
  return self;
}
