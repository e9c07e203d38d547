import { ConfigError } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { assertCheck, type Check, stringList } from '../checks/check.js';

/** What `new EvalCase(...)` takes: one prompt or several (one session), a check and tags. */
export interface EvalCaseInit {
  /** Unique name of the case within a suite (it keys baselines). */
  readonly name: string;
  /** The prompt of a one-prompt case. Give this or `prompts`. */
  readonly prompt?: string;
  /** The prompts of a multi-prompt case, run in order in one session. */
  readonly prompts?: readonly string[];
  /** Grades the session. */
  readonly check: Check;
  /** Tags to group results by (`format` marks a case about the answer's shape). */
  readonly tags?: readonly string[];
}

/**
 * One eval case: a prompt (or several, run in order in one session, one agent), a check of the
 * answer and tags. Immutable.
 * @example
 * const order = new EvalCase({
 *   name: 'order-total',
 *   prompts: ['Open order ORD-7.', 'What is its total?'],
 *   check: allOf(contains('ORD-7'), contains('$42')),
 *   tags: ['orders'],
 * });
 */
export class EvalCase {
  /** The case's unique name. */
  readonly name: string;
  /** Its prompts, in order (one for a one-prompt case). */
  readonly prompts: readonly string[];
  /** Its check. */
  readonly check: Check;
  /** Its tags. */
  readonly tags: readonly string[];

  constructor(init: EvalCaseInit) {
    assertOptions(init, ['name', 'prompt', 'prompts', 'check', 'tags'], '');
    if (typeof init.name !== 'string' || init.name.trim() === '')
      throw new ConfigError('name', 'expected a non-empty string');
    if ((init.prompt === undefined) === (init.prompts === undefined))
      throw new ConfigError('prompt', 'give exactly one of prompt and prompts');
    let prompts: readonly string[];
    if (init.prompt !== undefined) {
      if (typeof init.prompt !== 'string' || init.prompt.trim() === '')
        throw new ConfigError('prompt', 'expected a non-empty string');
      prompts = [init.prompt];
    } else {
      if (!Array.isArray(init.prompts) || init.prompts.length === 0)
        throw new ConfigError('prompts', 'expected a non-empty array of prompts');
      init.prompts.forEach((prompt, index) => {
        if (typeof prompt !== 'string' || prompt.trim() === '')
          throw new ConfigError(`prompts[${index}]`, 'expected a non-empty string');
      });
      prompts = init.prompts;
    }
    assertCheck(init.check, 'check');
    this.name = init.name;
    this.prompts = Object.freeze([...prompts]);
    this.check = init.check;
    this.tags = stringList(init.tags, 'tags');
    Object.freeze(this);
  }

  /** Every fact the case's check declares. */
  get facts(): readonly string[] {
    return this.check.facts;
  }
}
