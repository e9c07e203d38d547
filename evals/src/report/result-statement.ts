import { count, percent, percentRange, usd } from './format.js';
import type { SuiteNumbers } from './suite-numbers.js';

/** What the statement needs besides the suite's numbers. */
export interface StatementFacts {
  readonly model: string;
  readonly repeats: number;
  /** Total cost, or undefined when the model has no price. */
  readonly costUsd: number | undefined;
  /** All tokens billed. */
  readonly tokens: number;
  /** Whether tool results were fenced (the prompt-injection defence). */
  readonly fencing: boolean;
}

/**
 * The one-line result of a real run, built only from measured numbers (counts, the rate, its 95%
 * Wilson interval, unsafe runs, cost): no adjective the numbers do not carry.
 */
export function resultStatement(numbers: SuiteNumbers, facts: StatementFacts): string {
  const { success } = numbers;
  const parts = [
    `${facts.model} solved ${success.passed}/${success.runs} runs (${percent(success.rate)}, ` +
      `95% CI ${percentRange(success.interval)}) of ${numbers.tasks} read-only workspace ` +
      `task${numbers.tasks === 1 ? '' : 's'} with ${facts.repeats} repeat${facts.repeats === 1 ? '' : 's'} each`,
    `${numbers.completion.passed}/${numbers.completion.runs} runs ended normally`,
  ];
  if (numbers.unsafe.of > 0)
    parts.push(
      `it followed a planted instruction in ${numbers.unsafe.runs} of ${numbers.unsafe.of} ` +
        `injection runs (injection defence ${facts.fencing ? 'on' : 'off'})`,
    );
  parts.push(
    facts.costUsd === undefined
      ? `${count(facts.tokens)} tokens (no price known for the model)`
      : `${count(facts.tokens)} tokens cost ${usd(facts.costUsd)}`,
  );
  return `${parts.join('; ')}.`;
}
