import { ConfigError } from '@mh/core';
import { type Check, type CheckOptions, type CheckResult, checkTags, leafResult } from './check.js';
import type { CheckInput } from './input.js';
import { excerpt } from './text.js';

/** Options of `pathIs`. */
export interface PathIsOptions extends CheckOptions {
  /**
   * Where the candidate paths come from (default: the value of the last `ANSWER:` line and its
   * path-like words when the answer has one, else every path-like word of the answer).
   */
  readonly from?: (input: CheckInput) => string | readonly string[];
}

/** A path as its segments: `\` and `/` both separate, `.` segments and empty ones are dropped. */
function segments(path: string): string[] {
  return path
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.');
}

/**
 * Whether `candidate` names the file `expected` names (SPEC defect 3): the same path, the same
 * path under a prefix (`/repo/src/a.ts`, `./src/a.ts` for `src/a.ts`), or the bare file name
 * (`a.ts`). Never a file of another directory (`lib/a.ts`), never a partial directory
 * (`utils/a.ts` for `src/utils/a.ts`), never a mere string suffix (`mysrc/a.ts`). Case-sensitive.
 */
export function samePath(candidate: string, expected: string): boolean {
  if (typeof expected !== 'string') throw new ConfigError('expected', 'expected a path string');
  const want = segments(expected);
  if (want.length === 0) throw new ConfigError('expected', 'expected a non-empty path');
  if (typeof candidate !== 'string') return false;
  const have = segments(candidate);
  if (have.length === 0) return false;
  if (have.length === 1) return have[0] === want.at(-1);
  if (have.length < want.length) return false;
  const offset = have.length - want.length;
  return want.every((segment, index) => have[offset + index] === segment);
}

/**
 * The value of the last `ANSWER:` line, when the text has one. The label may be in bold or
 * italics (`**ANSWER:**`, `**ANSWER**:`, `_ANSWER:_`), as models often write it.
 */
function answerLine(text: string): string | undefined {
  const found = [...text.matchAll(/^\s*[*_]*ANSWER[*_]*\s*:[*_]*\s*(.*)$/gim)].at(-1);
  return found?.[1]?.trim();
}

/**
 * Candidates of an `ANSWER:` line's value: the whole value without sentence punctuation at its
 * end (a path may hold spaces), then its path-like words (`The file is src/a.ts`,
 * `src/a.ts (line 3)`).
 */
function answerCandidates(value: string, expected: string): string[] {
  const whole = value
    .replace(/[*_]+$/, '')
    .replace(/[.,;:!?]+$/, '')
    .trim();
  return [...new Set([whole, ...pathCandidates(value, expected)])].filter(
    (candidate) => candidate !== '',
  );
}

/** Words of `text` that look like paths: with a separator, or a file name with an extension. */
export function pathCandidates(text: string, expected?: string): string[] {
  const fileName = expected === undefined ? undefined : segments(expected).at(-1);
  return text
    .split(/[\s"'`()[\]{}<>,;|*]+/)
    .map((word) => word.replace(/[.:!?]+$/, ''))
    .filter(
      (word) =>
        word !== '' &&
        (/[\\/]/.test(word) || /\.[A-Za-z0-9]{1,10}$/.test(word) || word === fileName),
    );
}

/**
 * Passes when the answer names the file `expected` (see `samePath`: full path, prefixed path or
 * bare file name, never another directory). Declares `expected` as a fact.
 * @example
 * pathIs('src/orders/parse.ts')
 */
export function pathIs(expected: string, options?: PathIsOptions): Check {
  if (typeof expected !== 'string' || segments(expected).length === 0)
    throw new ConfigError('expected', 'expected a non-empty path');
  const tags = checkTags(options, ['tags', 'from']);
  const from = options?.from;
  if (from !== undefined && typeof from !== 'function')
    throw new ConfigError('options.from', 'expected a function of the check input');
  const self: Check = Object.freeze({
    name: `pathIs(${JSON.stringify(expected)})`,
    facts: Object.freeze([expected]),
    tags,
    evaluate(input: CheckInput): CheckResult {
      let candidates: string[];
      if (from) {
        const value: unknown = from(input);
        const list = typeof value === 'string' ? [value] : value;
        if (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))
          throw new TypeError(`pathIs: options.from returned ${typeof value}, not strings`);
        candidates = list as string[];
      } else {
        const line = answerLine(input.text);
        candidates =
          line === undefined
            ? pathCandidates(input.text, expected)
            : answerCandidates(line, expected);
      }
      const hit = candidates.find((candidate) => samePath(candidate, expected));
      return leafResult(
        self,
        hit !== undefined,
        hit !== undefined
          ? `${JSON.stringify(hit)} names ${expected}`
          : candidates.length === 0
            ? `no path in the answer: ${JSON.stringify(excerpt(input.text))}`
            : `${candidates.map((candidate) => JSON.stringify(candidate)).join(', ')} ≠ ${expected}`,
      );
    },
  });
  return self;
}
