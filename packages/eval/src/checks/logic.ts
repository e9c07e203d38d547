import { ConfigError } from '@mh/core';
import {
  assertCheck,
  type Check,
  type CheckOptions,
  type CheckResult,
  checkTags,
  leafResult,
  runCheck,
} from './check.js';
import type { CheckInput } from './input.js';

function assertChecks(checks: readonly unknown[], combinator: string): readonly Check[] {
  if (checks.length === 0)
    throw new ConfigError('checks', `${combinator}() needs at least one check`);
  checks.forEach((check, index) => {
    assertCheck(check, `checks[${index}]`);
  });
  return Object.freeze([...(checks as Check[])]);
}

function union(lists: readonly (readonly string[])[]): readonly string[] {
  return Object.freeze([...new Set(lists.flat())]);
}

/**
 * Passes when every check passes; reports every failed leaf. Declares the facts of all of them.
 * Checks run one after another, in order.
 * @example
 * allOf(contains('42'), toolCalled('calculator'))
 */
export function allOf(...checks: Check[]): Check {
  const parts = assertChecks(checks, 'allOf');
  return Object.freeze({
    name: `allOf(${parts.map((part) => part.name).join(', ')})`,
    facts: union(parts.map((part) => part.facts)),
    tags: union(parts.map((part) => part.tags)),
    async evaluate(input: CheckInput): Promise<CheckResult> {
      const results: CheckResult[] = [];
      for (const part of parts) results.push(await runCheck(part, input));
      const failures = results.flatMap((result) => result.failures);
      const failed = results.filter((result) => !result.passed);
      return {
        passed: failed.length === 0,
        reason:
          failed.length === 0
            ? `all ${parts.length} checks passed`
            : failed.map((result) => result.reason).join('; '),
        failures,
      };
    },
  });
}

/**
 * Passes when at least one check passes; when none does, reports the failures of all. Declares
 * the facts of all of them (any may be the one the answer needed).
 * @example
 * anyOf(contains('42'), contains('forty-two'))
 */
export function anyOf(...checks: Check[]): Check {
  const parts = assertChecks(checks, 'anyOf');
  return Object.freeze({
    name: `anyOf(${parts.map((part) => part.name).join(', ')})`,
    facts: union(parts.map((part) => part.facts)),
    tags: union(parts.map((part) => part.tags)),
    async evaluate(input: CheckInput): Promise<CheckResult> {
      const results: CheckResult[] = [];
      for (const part of parts) {
        const result = await runCheck(part, input);
        if (result.passed) return { passed: true, reason: result.reason, failures: [] };
        results.push(result);
      }
      return {
        passed: false,
        reason: `none of ${parts.length} passed: ${results.map((result) => result.reason).join('; ')}`,
        failures: results.flatMap((result) => result.failures),
      };
    },
  });
}

/**
 * Passes when `check` fails. Declares no facts: what must be absent is not a fact to find.
 * @example
 * not(contains('I cannot'))
 */
export function not(check: Check, options?: CheckOptions): Check {
  assertCheck(check, 'check');
  const tags = checkTags(options);
  const self: Check = Object.freeze({
    name: `not(${check.name})`,
    facts: Object.freeze([]),
    tags: union([tags, check.tags]),
    async evaluate(input: CheckInput): Promise<CheckResult> {
      const inner = await runCheck(check, input);
      return leafResult(
        self,
        !inner.passed,
        inner.passed ? `${check.name} passed but must not: ${inner.reason}` : inner.reason,
      );
    },
  });
  return self;
}
