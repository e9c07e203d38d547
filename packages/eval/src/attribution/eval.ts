// The eval layer: the eval itself broke (its check threw, its agent factory threw).
import { describeError, errorMessage, evidence } from './evidence.js';
import type { AttributionRule, RuleHit } from './rule.js';

export const evalCheckThrew: AttributionRule = {
  id: 'eval/check-threw',
  layer: 'eval',
  when: 'the check itself threw or returned no verdict',
  test(view): RuleHit | undefined {
    const check = view.input.check;
    if (check.status !== 'threw') return undefined;
    return {
      confidence: 'high',
      summary:
        `the check ${view.input.checkName ?? ''} threw: ${errorMessage(check.error)}`.replace(
          '  ',
          ' ',
        ),
      evidence: [evidence(describeError(check.error), { attribute: 'check' })],
      subject: view.input.checkName,
      detail: errorMessage(check.error),
    };
  },
};

export const evalFactoryThrew: AttributionRule = {
  id: 'eval/factory-threw',
  layer: 'eval',
  when: "the case's agent factory threw (no run happened)",
  test(view): RuleHit | undefined {
    const error = view.input.factoryError;
    if (error === undefined) return undefined;
    return {
      confidence: 'high',
      summary: `the agent factory threw: ${errorMessage(error)}`,
      evidence: [evidence(describeError(error), { attribute: 'factory' })],
      detail: errorMessage(error),
    };
  },
};
