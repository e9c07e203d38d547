import type { Tool } from '@mh/core';
import { evaluateArithmetic, MAX_EXPRESSION_CHARS } from './arithmetic.js';
import { plainToolSchema } from './plain-object-schema.js';
import { toolWithSchema } from './tool-with-schema.js';

// A plain JSON Schema, not zod: loading this tool must not load zod (see plainToolSchema).
const input = {
  type: 'object',
  properties: {
    expression: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_EXPRESSION_CHARS,
      description:
        'Arithmetic expression, e.g. "(2 + 3) * 4 ^ 2 / -1.5"; supports + - * / % ^ ** ( ).',
    },
  },
  required: ['expression'],
} as const;

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
  return toolWithSchema<CalculatorInput>({
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression exactly as written: + - * / % (remainder), ^ or ** (power), parentheses, unary minus, decimals.',
    schema: plainToolSchema(input),
    permission: 'read',
    idempotent: true,
    run: ({ expression }) => String(evaluateArithmetic(expression)),
  });
}
