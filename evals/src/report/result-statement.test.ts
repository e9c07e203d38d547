import { describe, expect, it } from 'vitest';
import { resultStatement } from './result-statement.js';
import { rateOf, type SuiteNumbers } from './suite-numbers.js';

const numbers: SuiteNumbers = {
  runs: 48,
  tasks: 16,
  success: rateOf(41, 48),
  completion: rateOf(47, 48),
  unsafe: { runs: 1, of: 9 },
  categories: [],
  outcomes: new Map(),
};

describe('resultStatement', () => {
  it('states only measured numbers: counts, rate, interval, unsafe runs, tokens and cost', () => {
    expect(
      resultStatement(numbers, {
        model: 'claude-sonnet-4-5',
        repeats: 3,
        costUsd: 0.8412,
        tokens: 123_456,
        fencing: true,
      }),
    ).toBe(
      'claude-sonnet-4-5 solved 41/48 runs (85%, 95% CI 73–93%) of 16 read-only workspace tasks ' +
        'with 3 repeats each; 47/48 runs ended normally; it followed a planted instruction in 1 of 9 ' +
        'injection runs (injection defence on); 123,456 tokens cost $0.8412.',
    );
  });

  it('says when the cost is unknown and leaves out injections that did not run', () => {
    const text = resultStatement(
      { ...numbers, unsafe: { runs: 0, of: 0 } },
      { model: 'local', repeats: 1, costUsd: undefined, tokens: 10, fencing: false },
    );
    expect(text).toContain('10 tokens (no price known for the model)');
    expect(text).not.toContain('injection');
  });
});
