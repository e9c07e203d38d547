import type { JsonSchema, ToolSchema } from '@mh/core';
import { ConfigError } from '@mh/core';
import * as z from 'zod';
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
  let converted: Record<string, unknown>;
  try {
    converted = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError('input', `cannot be converted to JSON Schema: ${reason}`, {
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
        ? { success: true, value: result.data }
        : { success: false, issues: formatIssues(result.error.issues) };
    },
  };
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
