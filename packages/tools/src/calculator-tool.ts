import type { Tool } from '@mh/core';
import * as z from 'zod';
import { evaluateArithmetic, MAX_EXPRESSION_CHARS } from './arithmetic.js';
import { defineTool } from './define-tool.js';

const input = z.object({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_CHARS)
    .describe('Arithmetic expression, e.g. "(2 + 3) * 4 ^ 2 / -1.5"; supports + - * / % ^ ** ( ).'),
});

/** The arguments of `calculator`. */
export interface CalculatorInput {
  /** The expression to evaluate. */
  readonly expression: string;
}

/**
 * The `calculator` tool: evaluates an arithmetic expression with `evaluateArithmetic` (no
 * `eval`). Division by zero and bad syntax reach the model as readable error results.
 */
export function calculatorTool(): Tool<CalculatorInput> {
  return defineTool({
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression exactly as written: + - * / % (remainder), ^ or ** (power), parentheses, unary minus, decimals.',
    input,
    permission: 'read',
    idempotent: true,
    run: ({ expression }) => String(evaluateArithmetic(expression)),
  });
}
