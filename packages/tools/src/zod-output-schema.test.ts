import { ConfigError, toStrictSchema } from '@mh/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isZodSchema, zodOutputSchema } from './zod-tool-schema.js';

describe('zodOutputSchema', () => {
  it('takes any zod type as the root, with a parser that words issues for the model', () => {
    const list = zodOutputSchema(z.array(z.string()).min(1));
    expect(list.jsonSchema).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(list.jsonSchema).not.toHaveProperty('$schema');
    expect(list.parse(['a'])).toEqual({ success: true, value: ['a'] });
    expect(list.parse([1])).toEqual({
      success: false,
      issues: ['0: expected string, received number'],
    });
  });

  it('returns the parsed value (defaults and transforms applied)', () => {
    const schema = zodOutputSchema(
      z.object({ city: z.string().trim(), rank: z.number().int().default(1) }),
    );
    expect(schema.parse({ city: ' Oslo ' })).toEqual({
      success: true,
      value: { city: 'Oslo', rank: 1 },
    });
  });

  it('writes a schema strict mode accepts for the usual shapes, and reads strict answers back', () => {
    const schema = zodOutputSchema(
      z.object({
        name: z.string(),
        nickname: z.string().optional(),
        age: z.number().int().nullable(),
        tags: z.array(z.enum(['a', 'b'])),
        address: z.object({ street: z.string(), zip: z.string().optional() }),
      }),
    );
    const strict = toStrictSchema(schema.jsonSchema);
    const written = {
      name: 'Ann',
      nickname: null,
      age: null,
      tags: ['a'],
      address: { street: 'Main', zip: null },
    };
    expect(schema.parse(strict.restore(written))).toEqual({
      success: true,
      value: { name: 'Ann', age: null, tags: ['a'], address: { street: 'Main' } },
    });
  });

  it('refuses what is not a zod schema, naming the field', () => {
    for (const value of [undefined, {}, { type: 'object' }, z]) {
      const error = (() => {
        try {
          zodOutputSchema(value as never, 'options.output');
        } catch (caught) {
          return caught;
        }
      })();
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as ConfigError).field).toBe('options.output');
    }
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema({ safeParse() {} })).toBe(false);
  });

  it('refuses a schema JSON Schema cannot express', () => {
    expect(() => zodOutputSchema(z.date())).toThrow(/output: cannot be converted to JSON Schema/);
  });
});
