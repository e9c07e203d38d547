import type { ParseResult, ToolSchema } from '@mh/core';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
};

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** JSON Schema dialects we validate; anything else is treated as 2020-12 (the MCP default). */
function isDraft07Family(schema: Readonly<Record<string, unknown>>): boolean {
  const dialect = schema.$schema;
  return typeof dialect === 'string' && /draft-0[4-7]/.test(dialect);
}

function compile(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  // The dialect is chosen here; `$schema` itself is dropped so ajv needs no meta-schemas.
  const { $schema: _dialect, ...rest } = schema;
  if (isDraft07Family(schema)) {
    draft07 ??= new Ajv(AJV_OPTIONS);
    return draft07.compile(rest);
  }
  draft2020 ??= new Ajv2020(AJV_OPTIONS);
  return draft2020.compile(rest);
}

/** Words one ajv error for a model: `a.b: must be number`, `(root): must have required property 'x'`. */
export function formatAjvError(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${path || '(root)'}: ${error.message ?? 'is invalid'}${extra}`;
}

/**
 * A `ToolSchema` validating arguments locally against a server's JSON Schema (draft-07 when its
 * `$schema` says so, else 2020-12), compiled once here. Throws when the schema does not compile.
 */
export function ajvToolSchema(schema: Readonly<Record<string, unknown>>): ToolSchema {
  const validate = compile(schema);
  return {
    jsonSchema: schema,
    parse(input: unknown): ParseResult<unknown> {
      const value = input ?? {};
      if (validate(value)) return { success: true, value };
      return { success: false, issues: (validate.errors ?? []).map(formatAjvError) };
    },
  };
}
