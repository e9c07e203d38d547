import {
  ConfigError,
  type OutputOptions,
  type Provider,
  type RunResult,
  type RunStatus,
  type ToolExecutor,
  type ToolSchema,
} from '@mh/core';
import { type ResolvedOutput, resolveOutput } from '@mh/core/internal';
import { isZodSchema, zodOutputSchema } from '@mh/tools/zod-free';

/**
 * A zod schema, as typed output reads it: anything with zod's `safeParse` that parses to `T`
 * (checked at run time as a zod schema of any copy of zod 4).
 */
export interface ZodLikeSchema<T> {
  safeParse(
    input: unknown,
  ): { readonly success: true; readonly data: T } | { readonly success: false };
}

/** The shape of a run's typed answer: a zod schema, a `ToolSchema`, or either with options. */
export type RunOutput<T> =
  | ZodLikeSchema<T>
  | ToolSchema<T>
  | (Omit<OutputOptions<T>, 'schema'> & { readonly schema: ZodLikeSchema<T> | ToolSchema<T> });

/**
 * A run's result with its typed answer: `output` holds the validated value exactly when the run
 * completed (`status === 'completed'`); a run that did not complete has none (its failure, an
 * `OutputInvalidError` when the model never answered in the schema, is in `error`).
 */
export type TypedRunResult<T> =
  | (Omit<RunResult, 'status' | 'output'> & { readonly status: 'completed'; readonly output: T })
  | (Omit<RunResult, 'status' | 'output'> & {
      readonly status: Exclude<RunStatus, 'completed'>;
      readonly output?: undefined;
    });

const FIELD = 'options.output';

/**
 * The run's output checked and resolved against the agent's provider and tools, before anything
 * of the run is kept or stored (a `ConfigError` names the field under `options.output`).
 */
export function resolveRunOutput(
  output: unknown,
  provider: Provider,
  tools: ToolExecutor | undefined,
): ResolvedOutput | undefined {
  if (output === undefined) return undefined;
  const names = tools?.specs().map((spec) => spec.name) ?? [];
  return resolveOutput(outputOptions(output), provider, names, FIELD);
}

function outputOptions(output: unknown): OutputOptions {
  if (isZodSchema(output) || isToolSchema(output)) return { schema: schemaOf(output, FIELD) };
  if (output === null || typeof output !== 'object' || !('schema' in output)) {
    throw new ConfigError(
      FIELD,
      'expected a zod schema, a ToolSchema, or { schema, name?, strategy?, maxRetries? }',
    );
  }
  const options = output as OutputOptions & { readonly schema: unknown };
  return { ...options, schema: schemaOf(options.schema, `${FIELD}.schema`) };
}

function schemaOf(schema: unknown, field: string): ToolSchema {
  if (isZodSchema(schema)) return zodOutputSchema(schema, field);
  if (isToolSchema(schema)) return schema;
  throw new ConfigError(field, 'expected a zod schema or a ToolSchema { jsonSchema, parse }');
}

function isToolSchema(value: unknown): value is ToolSchema {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ToolSchema).parse === 'function' &&
    typeof (value as ToolSchema).jsonSchema === 'object' &&
    (value as ToolSchema).jsonSchema !== null
  );
}
