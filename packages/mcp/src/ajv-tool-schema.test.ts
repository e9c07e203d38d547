import { describe, expect, it } from 'vitest';
import { ajvToolSchema } from './ajv-tool-schema.js';

describe('ajvToolSchema', () => {
  const schema = ajvToolSchema({
    type: 'object',
    properties: {
      a: { type: 'number' },
      nested: { type: 'object', properties: { b: { type: 'string' } } },
    },
    required: ['a'],
    additionalProperties: false,
  });

  it('accepts valid arguments', () => {
    expect(schema.parse({ a: 1 })).toEqual({ success: true, value: { a: 1 } });
  });

  it('names the path and the problem', () => {
    expect(schema.parse({ a: 'x' })).toEqual({ success: false, issues: ['a: must be number'] });
    expect(schema.parse({ a: 1, nested: { b: 2 } })).toEqual({
      success: false,
      issues: ['nested.b: must be string'],
    });
  });

  it('reports missing and unknown properties at the root', () => {
    const result = schema.parse({ extra: true });
    expect(result.success).toBe(false);
    expect(!result.success && result.issues).toEqual([
      "(root): must have required property 'a'",
      '(root): must NOT have additional properties (extra)',
    ]);
  });

  it('treats absent arguments as an empty object', () => {
    expect(ajvToolSchema({ type: 'object' }).parse(undefined).success).toBe(true);
  });

  it('validates 2020-12 keywords such as prefixItems', () => {
    const tuple = ajvToolSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
    });
    expect(tuple.parse({ pair: ['a', 1] }).success).toBe(true);
    expect(tuple.parse({ pair: ['a', 'b'] })).toEqual({
      success: false,
      issues: ['pair.1: must be number'],
    });
  });

  it('validates draft-07 schemas', () => {
    const draft07 = ajvToolSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { list: { type: 'array', items: [{ type: 'string' }] } },
    });
    expect(draft07.parse({ list: [1] })).toEqual({
      success: false,
      issues: ['list.0: must be string'],
    });
  });

  it('throws on a schema that does not compile', () => {
    expect(() =>
      ajvToolSchema({ type: 'object', properties: { a: { type: 'nonsense' } } }),
    ).toThrow();
  });
});
