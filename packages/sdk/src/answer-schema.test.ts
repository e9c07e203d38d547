import { describe, expect, it } from 'vitest';
import { answerSchemaProblem } from './answer-schema.js';

const problem = (answer: unknown, schema: Record<string, unknown>) =>
  answerSchemaProblem(answer, schema, 'answer');

describe('answerSchemaProblem', () => {
  it('accepts an answer that satisfies the schema', () => {
    const schema = {
      type: 'object',
      required: ['region'],
      properties: {
        region: { type: 'string', enum: ['eu', 'us'] },
        hours: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 23 } },
      },
      additionalProperties: false,
    };
    expect(problem({ region: 'eu', hours: [1, 23] }, schema)).toBeUndefined();
    expect(problem('anything', {})).toBeUndefined();
    expect(problem(null, { type: ['string', 'null'] })).toBeUndefined();
  });

  it.each([
    ['x', { type: 'integer' }, 'answer: expected integer, got string'],
    [1.5, { type: 'integer' }, 'answer: expected integer, got number'],
    ['mars', { enum: ['eu', 'us'] }, 'answer: expected one of ["eu","us"]'],
    [{ a: 1 }, { const: { a: 2 } }, 'answer: expected {"a":2}'],
    [{}, { type: 'object', required: ['region'] }, 'answer.region: required'],
    [{ b: 1 }, { properties: { a: {} }, additionalProperties: false }, 'answer.b: not allowed'],
    [{ a: 'x' }, { properties: { a: { type: 'number' } } }, 'answer.a: expected number'],
    [[1, 'x'], { items: { type: 'number' } }, 'answer[1]: expected number'],
    ['', { minLength: 1 }, 'answer: expected at least 1 characters'],
    [30, { maximum: 23 }, 'answer: expected <= 23'],
  ])('refuses %j against %j', (answer, schema, expected) => {
    expect(problem(answer, schema)).toContain(expected);
  });
});
