import { createRequire } from 'node:module';
import { ConfigError, type JsonSchema, type ToolSchema } from '@mh/core';
import type * as z from 'zod';
import { formatIssues } from './format-issues.js';

/**
 * Turns a zod object schema into core's `ToolSchema`: a JSON Schema of the *input* side (fields
 * with defaults are optional for the model) without `$schema`, and a parser that never throws and
 * words its issues for the model. Throws `ConfigError` (field `input`) when the schema is not a
 * zod object or cannot be written as JSON Schema (dates, functions, …).
 */
export function zodToolSchema<Schema extends z.ZodObject>(
  schema: Schema,
): ToolSchema<z.output<Schema>> {
  if (!isZodObject(schema)) {
    throw new ConfigError(
      'input',
      'expected a zod object schema, e.g. z.object({ path: z.string() })',
    );
  }
  return toolSchemaOf(schema, 'input');
}

/**
 * Turns any zod schema into core's `ToolSchema` for a typed answer (`output`): like
 * `zodToolSchema`, but the root may be any type (core wraps a non-object in `{ value }` for the
 * model). Throws `ConfigError` naming `field` when it is not a zod schema or cannot be written as
 * JSON Schema.
 */
export function zodOutputSchema<Schema extends z.ZodType>(
  schema: Schema,
  field = 'output',
): ToolSchema<z.output<Schema>> {
  if (!isZodSchema(schema)) {
    throw new ConfigError(field, 'expected a zod schema, e.g. z.object({ city: z.string() })');
  }
  return toolSchemaOf(schema, field);
}

function toolSchemaOf<Schema extends z.ZodType>(
  schema: Schema,
  field: string,
): ToolSchema<z.output<Schema>> {
  let converted: Record<string, unknown>;
  try {
    converted = toInputJsonSchema(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(field, `cannot be converted to JSON Schema: ${reason}`, {
      cause: error,
    });
  }
  const { $schema: _dropped, ...rest } = converted;
  const jsonSchema: JsonSchema = Object.freeze(rest);
  return {
    jsonSchema,
    parse(input) {
      const result = schema.safeParse(input);
      return result.success
        ? { success: true, value: result.data as z.output<Schema> }
        : { success: false, issues: formatIssues(result.error.issues) };
    },
  };
}

/**
 * The schema's own `toJSONSchema` method, not `z.toJSONSchema`: importing zod in this module would
 * load it (70-100 ms) for every program that imports `@mh/tools/zod-free`, such as the CLI, whose
 * cold start cannot afford it (issue 16). Only a schema of a zod older than that method (from
 * another copy of zod) loads ours, through its CommonJS build, as `z.toJSONSchema` did before.
 */
function toInputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const own = (schema as { toJSONSchema?: unknown }).toJSONSchema;
  const converted =
    typeof own === 'function'
      ? (own.call(schema, { io: 'input' }) as unknown)
      : (createRequire(import.meta.url)('zod') as typeof z).toJSONSchema(schema, { io: 'input' });
  return converted as Record<string, unknown>;
}

/** Checked structurally, so a schema from another copy of zod is still recognised. */
export function isZodSchema(value: unknown): value is z.ZodType {
  if (typeof value !== 'object' || value === null) return false;
  const internals = (value as { _zod?: { def?: { type?: unknown } } })._zod;
  return (
    typeof internals?.def?.type === 'string' &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

/** Checked structurally, so a schema from another copy of zod is still recognised. */
function isZodObject(value: unknown): value is z.ZodObject {
  if (typeof value !== 'object' || value === null) return false;
  const internals = (value as { _zod?: { def?: { type?: unknown } } })._zod;
  return (
    internals?.def?.type === 'object' &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}
