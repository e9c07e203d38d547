import type { ToolRunContext } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool, type ToolDefinition } from './define-tool.js';

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };

function definition(
  // Any key, so a misspelt one can be tested too.
  overrides: Readonly<Record<string, unknown>> = {},
): ToolDefinition<z.ZodObject<{ a: z.ZodNumber; b: z.ZodDefault<z.ZodString> }>> {
  return {
    name: 'sample',
    description: 'A sample tool.',
    input: z.object({ a: z.number(), b: z.string().default('bee') }),
    permission: 'read',
    run: ({ a, b }) => `${a}${b}`,
    ...overrides,
  } as ToolDefinition<z.ZodObject<{ a: z.ZodNumber; b: z.ZodDefault<z.ZodString> }>>;
}

describe('defineTool', () => {
  it('returns a tool with the given metadata, idempotent only when said (either way)', () => {
    const tool = defineTool(definition({ timeoutMs: 500 }));
    expect(tool.name).toBe('sample');
    expect(tool.permission).toBe('read');
    expect(tool.timeoutMs).toBe(500);
    // Not said: a read-only tool may then run again after a crash (the Agent's recovery).
    expect(tool.idempotent).toBeUndefined();
    expect(defineTool(definition({ idempotent: false })).idempotent).toBe(false);
    expect(defineTool(definition({ idempotent: true })).idempotent).toBe(true);
    expect(tool.deterministic).toBeUndefined();
    expect(defineTool(definition({ deterministic: true })).deterministic).toBe(true);
  });

  it('derives an object JSON Schema of the input side without $schema', () => {
    const { jsonSchema } = defineTool(definition()).schema;
    expect(jsonSchema.$schema).toBeUndefined();
    expect(jsonSchema.type).toBe('object');
    expect(jsonSchema.required).toEqual(['a']);
    expect(Object.keys(jsonSchema.properties as object)).toEqual(['a', 'b']);
  });

  it('parses valid input, applying defaults', () => {
    const result = defineTool(definition()).schema.parse({ a: 1 });
    expect(result).toEqual({ success: true, value: { a: 1, b: 'bee' } });
  });

  it('words a type mismatch as path: expected X, received Y', () => {
    const result = defineTool(definition()).schema.parse({ a: 'one' });
    expect(result).toEqual({ success: false, issues: ['a: expected number, received string'] });
  });

  it('words a missing field as missing', () => {
    const result = defineTool(definition()).schema.parse({});
    expect(result).toEqual({
      success: false,
      issues: ['a: missing required value (expected number)'],
    });
  });

  it('joins nested paths with dots', () => {
    const tool = defineTool({
      ...definition(),
      // Another schema: the spread's approval rule would read the old arguments.
      needsApproval: false,
      input: z.object({ items: z.array(z.object({ name: z.string() })) }),
      run: () => 'ok',
    });
    const result = tool.schema.parse({ items: [{ name: 'x' }, { name: 3 }] });
    expect(result).toEqual({
      success: false,
      issues: ['items.1.name: expected string, received number'],
    });
  });

  it('names the root as (root) when the arguments are not an object', () => {
    const result = defineTool(definition()).schema.parse('just text');
    expect(result).toEqual({
      success: false,
      issues: ['(root): expected object, received string'],
    });
  });

  it('passes the parsed input and the context to run', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      ...definition(),
      run: (input, runContext) => {
        seen.push(input, runContext.callId);
        return 'ok';
      },
    });
    const parsed = tool.schema.parse({ a: 2 });
    if (!parsed.success) throw new Error('expected valid input');
    await tool.run(parsed.value, context);
    expect(seen).toEqual([{ a: 2, b: 'bee' }, 'c1']);
  });

  it('turns a synchronous throw in run into a rejected promise', async () => {
    const tool = defineTool({
      ...definition(),
      run: () => {
        throw new Error('sync failure');
      },
    });
    await expect(tool.run({ a: 1, b: 'x' }, context)).rejects.toThrow('sync failure');
  });

  it.each([
    ['name', { name: 'has space' }],
    ['name', { name: 'x'.repeat(65) }],
    ['name', { name: '' }],
    ['description', { description: '' }],
    ['description', { description: 42 }],
    ['input', { input: z.string() }],
    ['input', { input: { a: 'number' } }],
    ['input', { input: z.object({ when: z.date() }) }],
    ['permission', { permission: 'admin' }],
    ['timeoutMs', { timeoutMs: 0 }],
    ['timeoutMs', { timeoutMs: -5 }],
    ['timeoutMs', { timeoutMs: Number.POSITIVE_INFINITY }],
    ['idempotent', { idempotent: 'yes' }],
    ['deterministic', { deterministic: 1 }],
    ['run', { run: 'not a function' }],
    ['timeout', { timeout: 500 }],
    ['readOnly', { readOnly: true }],
  ])('rejects a bad definition with ConfigError naming %s (%j)', (field, overrides) => {
    expect(fieldOf(() => defineTool(definition(overrides)))).toBe(field);
  });

  it('accepts a 64-character name of letters, digits, _ and -', () => {
    const name = `a-_9${'z'.repeat(60)}`;
    expect(defineTool(definition({ name })).name).toBe(name);
  });
});
