import { ConfigError, type JsonSchema, toStrictSchema } from '@mh/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * A zod schema written for OpenAI's strict mode (typed output): the rewrite is checked against the
 * strict-mode rules themselves, written out here from OpenAI's Structured Outputs documentation
 * (supported schemas), and an answer the model writes under it must parse with the original zod
 * schema once restored.
 */

/** What strict mode accepts on a schema node, per type. */
const ALLOWED = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  // strings
  'pattern',
  'format',
  // numbers
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  // arrays
  'minItems',
  'maxItems',
]);
const FORMATS = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
];

/** Every way `schema` breaks strict mode, each with its path; empty when it is accepted. */
function strictModeProblems(schema: JsonSchema): string[] {
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push('#: the root is not an object');
  if (schema.anyOf !== undefined) problems.push('#: the root is a union');
  let properties = 0;
  const walk = (node: JsonSchema, path: string, depth: number): void => {
    if (depth > 10) problems.push(`${path}: nested deeper than 10 levels`);
    for (const key of Object.keys(node))
      if (!ALLOWED.has(key)) problems.push(`${path}: ${key} is not supported`);
    if (node.format !== undefined && !FORMATS.includes(String(node.format)))
      problems.push(`${path}: format ${String(node.format)}`);
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object') || node.properties !== undefined) {
      if (node.additionalProperties !== false)
        problems.push(`${path}: additionalProperties is not false`);
      const keys = Object.keys((node.properties ?? {}) as object);
      properties += keys.length;
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      if (keys.length !== required.length || keys.some((key) => !required.includes(key)))
        problems.push(`${path}: not every property is required`);
      for (const key of keys)
        walk(
          (node.properties as Record<string, JsonSchema>)[key] as JsonSchema,
          `${path}/properties/${key}`,
          depth + 1,
        );
    }
    if (node.items !== undefined) walk(node.items as JsonSchema, `${path}/items`, depth + 1);
    for (const [index, branch] of ((node.anyOf ?? []) as JsonSchema[]).entries())
      walk(branch, `${path}/anyOf/${index}`, depth);
    for (const defs of ['$defs', 'definitions'])
      for (const [name, def] of Object.entries((node[defs] ?? {}) as Record<string, JsonSchema>))
        walk(def, `${path}/${defs}/${name}`, depth);
  };
  walk(schema, '#', 0);
  if (properties > 5000) problems.push('#: more than 5000 properties');
  return problems;
}

const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(schema, { io: 'input' });
  return rest;
};

describe('toStrictSchema on zod schemas', () => {
  const Order = z.object({
    name: z.string().min(1).max(50),
    quantity: z.number().int().min(1).optional(),
    email: z.email(),
    placed: z.iso.datetime(),
    tags: z.array(z.string().max(20)).max(5),
    status: z.enum(['open', 'shipped']),
    note: z.string().nullable(),
    address: z.object({
      city: z.string(),
      zip: z
        .string()
        .regex(/^\d{5}$/)
        .optional(),
    }),
    payment: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('card'), last4: z.string() }),
      z.object({ kind: z.literal('invoice'), due: z.string().optional() }),
    ]),
  });

  it('meets every strict-mode rule and keeps what it can check', () => {
    const strict = toStrictSchema(jsonSchemaOf(Order));
    expect(strictModeProblems(strict.schema)).toEqual([]);
    expect(strictModeProblems(jsonSchemaOf(Order)).length).toBeGreaterThan(0);
    expect(strict.removed).toEqual(
      expect.arrayContaining(['#/properties/name/minLength', '#/properties/name/maxLength']),
    );
    const address = (strict.schema.properties as Record<string, JsonSchema>).address as JsonSchema;
    expect((address.properties as Record<string, JsonSchema>).zip).toEqual({
      anyOf: [{ type: 'string', pattern: '^\\d{5}$' }, { type: 'null' }],
    });
  });

  it('restores an answer written with nulls for the optional fields so zod parses it', () => {
    const strict = toStrictSchema(jsonSchemaOf(Order));
    const answer = {
      name: 'Ana',
      quantity: null,
      email: 'ana@example.com',
      placed: '2026-12-04T09:30:00Z',
      tags: [],
      status: 'open',
      note: null,
      address: { city: 'Lyon', zip: null },
      payment: { kind: 'invoice', due: null },
    };
    expect(Order.safeParse(answer).success).toBe(false);
    const restored = strict.restore(answer);
    expect(Order.parse(restored)).toEqual({
      name: 'Ana',
      email: 'ana@example.com',
      placed: '2026-12-04T09:30:00Z',
      tags: [],
      status: 'open',
      note: null,
      address: { city: 'Lyon' },
      payment: { kind: 'invoice' },
    });
    expect(answer.quantity).toBeNull(); // the answer itself is not changed
  });

  it('handles a recursive schema through $defs and restores at every depth', () => {
    const Node = z.object({
      label: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const Tree = z.object({ root: Node });
    const strict = toStrictSchema(jsonSchemaOf(Tree));
    expect(strictModeProblems(strict.schema)).toEqual([]);
    const restored = strict.restore({
      root: { label: 'a', children: [{ label: 'b', children: null }] },
    });
    expect(Tree.parse(restored)).toEqual({ root: { label: 'a', children: [{ label: 'b' }] } });
  });

  it('refuses, naming the field and the path, what strict mode cannot express', () => {
    const object = (property: JsonSchema): JsonSchema => ({
      type: 'object',
      properties: { x: property },
      required: ['x'],
    });
    const refused: [JsonSchema, RegExp][] = [
      [jsonSchemaOf(z.array(z.string())), /object at the root/],
      [
        jsonSchemaOf(z.object({ scores: z.record(z.string(), z.number()) })),
        /open object.*#\/properties\/scores/,
      ],
      [
        jsonSchemaOf(z.object({ pair: z.tuple([z.string(), z.number()]) })),
        /prefixItems.*#\/properties\/pair/,
      ],
      // zod folds an intersection of objects into one object; other JSON Schemas may not.
      [object({ allOf: [{ type: 'string' }, { pattern: 'a' }] }), /"allOf".*#\/properties\/x/],
      [object({ not: { type: 'string' } }), /"not"/],
      [object({ type: 'string', if: { pattern: 'a' }, else: { pattern: 'b' } }), /"if"/],
      [object({ type: 'object', properties: {}, additionalProperties: true }), /open object/],
      [object({ anyOf: [] }), /an empty union/],
      [{ type: 'object', properties: {}, anyOf: [{ type: 'object' }] }, /a union at the root/],
    ];
    for (const [schema, message] of refused) {
      let thrown: unknown;
      try {
        toStrictSchema(schema, 'output');
      } catch (error) {
        thrown = error;
      }
      expect(ConfigError.isInstance(thrown), String(message)).toBe(true);
      expect((thrown as ConfigError).field).toBe('output');
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it('refuses a schema nested deeper than strict mode allows', () => {
    let deep: z.ZodType = z.string();
    for (let level = 0; level < 12; level++) deep = z.object({ next: deep });
    expect(() => toStrictSchema(jsonSchemaOf(deep))).toThrow(/more than 10 levels/);
  });
});

/** A random zod shape, and how to make a value of it. */
type Shape =
  | { readonly kind: 'string' | 'number' | 'boolean' | 'enum' | 'nullable' }
  | { readonly kind: 'array'; readonly item: Shape }
  | { readonly kind: 'object'; readonly fields: readonly (readonly [string, Shape, boolean])[] };

const shapes = fc.letrec<{ node: Shape; object: Shape; array: Shape }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('string', 'number', 'boolean', 'enum', 'nullable').map((kind) => ({ kind })),
    tie('object'),
    tie('array'),
  ) as fc.Arbitrary<Shape>,
  array: tie('node').map((item) => ({ kind: 'array', item }) as Shape),
  object: fc
    .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), tie('node'), fc.boolean()), {
      selector: ([key]) => key,
      maxLength: 4,
    })
    .map((fields) => ({ kind: 'object', fields }) as Shape),
}));

function zodOf(shape: Shape): z.ZodType {
  switch (shape.kind) {
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(['x', 'y']);
    case 'nullable':
      return z.string().nullable();
    case 'array':
      return z.array(zodOf(shape.item));
    case 'object':
      return z.object(
        Object.fromEntries(
          shape.fields.map(([key, field, optional]) => [
            key,
            optional ? zodOf(field).optional() : zodOf(field),
          ]),
        ),
      );
  }
}

/**
 * A value of the shape as restored from strict mode, and as the model writes it there (an absent
 * optional property → null).
 */
function valuesOf(shape: Shape): fc.Arbitrary<readonly [unknown, unknown]> {
  const same = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.map((v) => [v, v] as const);
  switch (shape.kind) {
    case 'string':
      return same(fc.string());
    case 'number':
      return same(fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return same(fc.boolean());
    case 'enum':
      return same(fc.constantFrom('x', 'y'));
    case 'nullable':
      return same(fc.option(fc.string(), { nil: null }));
    case 'array':
      return fc
        .array(valuesOf(shape.item), { maxLength: 3 })
        .map((pairs) => [pairs.map(([v]) => v), pairs.map(([, w]) => w)] as const);
    case 'object':
      return fc
        .tuple(
          ...shape.fields.map(([, field, optional]) =>
            optional ? fc.option(valuesOf(field), { nil: undefined }) : valuesOf(field),
          ),
        )
        .map((members) => {
          const value: Record<string, unknown> = {};
          const written: Record<string, unknown> = {};
          shape.fields.forEach(([key], index) => {
            const pair = members[index];
            written[key] = pair === undefined ? null : pair[1];
            if (pair !== undefined) value[key] = pair[0];
            // Optional and nullable: strict mode writes both as null, and null is what comes back.
            else if (shape.fields[index]?.[1].kind === 'nullable') value[key] = null;
          });
          return [value, written] as const;
        });
  }
}

describe('toStrictSchema, for any object schema', () => {
  it('meets strict mode, and an answer written under it parses with the original once restored', () => {
    const cases = shapes.object.chain((shape) =>
      valuesOf(shape).map(([value, written]) => ({ shape, value, written })),
    );
    fc.assert(
      fc.property(cases, ({ shape, value, written }) => {
        const schema = zodOf(shape);
        const strict = toStrictSchema(jsonSchemaOf(schema));
        expect(strictModeProblems(strict.schema)).toEqual([]);
        const parsed = schema.safeParse(strict.restore(written));
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });
});
