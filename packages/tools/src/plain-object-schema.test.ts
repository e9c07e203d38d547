import { tmpdir } from 'node:os';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MAX_EXPRESSION_CHARS } from './arithmetic.js';
import { calculatorTool } from './calculator-tool.js';
import { plainToolSchema } from './plain-object-schema.js';
import { workspaceTools } from './workspace/workspace-tools.js';
import { zodToolSchema } from './zod-tool-schema.js';

// The built-in tools were zod schemas until their plain JSON Schemas spared the CLI loading zod
// (issue 16). These are those zod schemas: the model must see the same JSON Schema, byte for
// byte (a recorded cassette's replay compares the tools), and each input must be accepted or
// refused as before, with the same issue lines.
const ZOD_SCHEMAS: Readonly<Record<string, z.ZodObject>> = {
  calculator: z.object({
    expression: z
      .string()
      .min(1)
      .max(MAX_EXPRESSION_CHARS)
      .describe(
        'Arithmetic expression, e.g. "(2 + 3) * 4 ^ 2 / -1.5"; supports + - * / % ^ ** ( ).',
      ),
  }),
  read_file: z.object({
    path: z.string().describe('File path, relative to the workspace root.'),
    offset: z.number().int().min(1).optional().describe('First line to read, 1-based (default 1).'),
    limit: z.number().int().min(1).optional().describe('Most lines to read (default 2000).'),
  }),
  list_dir: z.object({
    path: z
      .string()
      .optional()
      .describe('Directory path, relative to the workspace root (default: the root).'),
  }),
  grep: z.object({
    pattern: z.string().min(1).describe('JavaScript regular expression, e.g. "TODO|FIXME".'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search, relative to the workspace root (default: the root).'),
    glob: z
      .string()
      .optional()
      .describe(
        'Only search files matching this glob: "*.ts" matches file names, "src/**/*.ts" paths from the root.',
      ),
    ignoreCase: z.boolean().optional().describe('Match case-insensitively (default false).'),
  }),
  glob: z.object({
    pattern: z
      .string()
      .min(1)
      .describe('Glob such as "**/*.ts" or "src/*.{js,json}"; "**" spans directories.'),
    path: z
      .string()
      .optional()
      .describe('Directory the pattern is relative to (default: the workspace root).'),
  }),
};

/** Values a model (or a hostile caller) might send for one argument. */
const VALUES: readonly unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  2,
  1.5,
  -1,
  -1.5,
  2 ** 53,
  2 ** 60,
  -(2 ** 60),
  Number.MAX_SAFE_INTEGER,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  '',
  'a',
  '1',
  '2 + 3',
  'x'.repeat(MAX_EXPRESSION_CHARS),
  'x'.repeat(MAX_EXPRESSION_CHARS + 1),
  [],
  ['a'],
  Array.from({ length: MAX_EXPRESSION_CHARS + 1 }, () => 'x'),
  {},
  { path: 'a' },
  10n,
  new Date(0),
];

/** Whole argument objects (and non-objects) built from `VALUES` for each key of a schema. */
function inputsFor(keys: readonly string[]): unknown[] {
  const inputs: unknown[] = [...VALUES, Object.create(null), { unknown: 1 }];
  for (const key of keys) {
    for (const value of VALUES) {
      inputs.push({ [key]: value });
      // With every other key valid-looking, and with an unknown key zod drops.
      inputs.push({ ...Object.fromEntries(keys.map((other) => [other, 'a'])), [key]: value });
      inputs.push({ extra: 1, [key]: value, pattern: 'p', path: 'p', expression: '1' });
    }
  }
  return inputs;
}

describe('the built-in tools’ plain schemas behave as their zod schemas did', () => {
  // The schemas do not touch the files: any existing directory is a root.
  const tools = [calculatorTool(), ...workspaceTools({ root: tmpdir() })];

  it.each(tools.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    const expected = zodToolSchema(ZOD_SCHEMAS[name] as z.ZodObject);
    expect(JSON.stringify(tool.schema.jsonSchema)).toBe(JSON.stringify(expected.jsonSchema));
    const keys = Object.keys(tool.schema.jsonSchema.properties as object);
    for (const input of inputsFor(keys)) {
      const ours = tool.schema.parse(input);
      const theirs = expected.parse(input);
      expect(ours, `${name} ${inspect(input)}`).toStrictEqual(theirs);
      if (ours.success && theirs.success) {
        expect(Object.keys(ours.value as object)).toEqual(Object.keys(theirs.value as object));
      }
    }
  });
});

describe('plainToolSchema', () => {
  it('words a given integer maximum for a number, as zod words .max()', () => {
    const schema = plainToolSchema<{ n: number }>({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: 3 } },
      required: ['n'],
    });
    expect(schema.parse({ n: 4 })).toEqual({
      success: false,
      issues: ['n: Too big: expected number to be <=3'],
    });
    expect(zodToolSchema(z.object({ n: z.number().int().min(1).max(3) })).parse({ n: 4 })).toEqual(
      schema.parse({ n: 4 }),
    );
    expect(schema.parse({ n: 2 })).toEqual({ success: true, value: { n: 2 } });
  });
});
