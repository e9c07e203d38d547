import { describe, expect, it } from 'vitest';
import { evaluateArithmetic } from './arithmetic.js';

describe('evaluateArithmetic', () => {
  it.each([
    ['1 + 2', 3],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 / 4', 2.5],
    ['10 - 4 - 3', 3],
    ['2 ^ 10', 1024],
    ['2 ** 10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-(3 + 4)', -7],
    ['--3', 3],
    ['+5', 5],
    ['7 % 3', 1],
    ['-7 % 3', -1],
    ['.5 + 1.25', 1.75],
    ['1e3 / 8', 125],
    ['0.1 + 0.2', 0.3],
    ['  ( ( 1 ) )  ', 1],
    ['-0 * 5', 0],
  ])('evaluates %s to %d', (expression, expected) => {
    expect(evaluateArithmetic(expression)).toBe(expected);
  });

  it('reports division by zero with its position', () => {
    expect(() => evaluateArithmetic('1 / (2 - 2)')).toThrow('Division by zero at position 3.');
  });

  it('reports a remainder by zero as division by zero', () => {
    expect(() => evaluateArithmetic('5 % 0')).toThrow(RangeError);
  });

  it('reports an unknown character', () => {
    expect(() => evaluateArithmetic('2 + x')).toThrow("Unexpected character 'x' at position 5.");
  });

  it('reports a missing operand at the end', () => {
    expect(() => evaluateArithmetic('2 +')).toThrow(
      "Expected a number or '(' but found the end of the expression.",
    );
  });

  it('reports an unclosed parenthesis', () => {
    expect(() => evaluateArithmetic('(1 + 2')).toThrow(
      "Missing ')' to close the '(' at position 1.",
    );
  });

  it('reports a stray closing parenthesis', () => {
    expect(() => evaluateArithmetic('1 + 2)')).toThrow("Unexpected ')' at position 6.");
  });

  it('reports an empty expression', () => {
    expect(() => evaluateArithmetic('   ')).toThrow('The expression is empty.');
  });

  it('refuses code instead of evaluating it', () => {
    expect(() => evaluateArithmetic('process.exit(1)')).toThrow(SyntaxError);
  });

  it('reports a result too large to represent', () => {
    expect(() => evaluateArithmetic('10 ^ 400')).toThrow('The result is too large to represent.');
  });

  it('reports a result that is not real', () => {
    expect(() => evaluateArithmetic('(-8) ^ 0.5')).toThrow('The result is not a real number.');
  });

  it('refuses nesting deep enough to exhaust the stack', () => {
    expect(() => evaluateArithmetic(`${'('.repeat(300)}1${')'.repeat(300)}`)).toThrow(
      'nested too deeply',
    );
  });
});
