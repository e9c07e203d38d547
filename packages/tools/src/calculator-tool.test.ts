import { type ToolOutcome, toolResultText } from '@mh/core';
import { collectOutcomes } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { calculatorTool } from './calculator-tool.js';
import { PolicyToolExecutor } from './policy-tool-executor.js';

async function calculate(expression: unknown): Promise<ToolOutcome | undefined> {
  const executor = new PolicyToolExecutor({ tools: [calculatorTool()] });
  const calls = [
    { type: 'tool_use', id: 'c1', name: 'calculator', input: { expression } },
  ] as const;
  const [outcome] = await collectOutcomes(
    executor.execute(calls, { signal: new AbortController().signal }),
  );
  return outcome;
}

describe('calculatorTool', () => {
  it('is a read-only idempotent tool named calculator', () => {
    const tool = calculatorTool();
    expect([tool.name, tool.permission, tool.idempotent]).toEqual(['calculator', 'read', true]);
  });

  it('answers an expression with its value', async () => {
    const outcome = await calculate('(1.5 + 2.5) * 2 ^ 3');
    expect(outcome?.status).toBe('ok');
    expect(outcome && toolResultText(outcome.result)).toBe('32');
  });

  it('answers division by zero with a readable error result', async () => {
    const outcome = await calculate('4 / 0');
    expect(outcome?.status).toBe('error');
    expect(outcome && toolResultText(outcome.result)).toBe('Division by zero at position 3.');
  });

  it('answers bad syntax with a readable error result', async () => {
    const outcome = await calculate('2 * * 3');
    expect(outcome?.result.isError).toBe(true);
    expect(outcome && toolResultText(outcome.result)).toContain("found '*' at position 5");
  });

  it('answers a non-string expression as invalid arguments', async () => {
    const outcome = await calculate(42);
    expect(outcome?.status).toBe('invalid-arguments');
  });
});
