import { ConfigError } from '../errors.js';
import type { JsonSchema, OutputFormat, Provider, ToolSpec } from '../ports/provider.js';
import type { ToolSchema } from '../ports/tool.js';
import { assertOptions, shownValue } from '../support/option-checks.js';
import { toStrictSchema } from './strict-schema.js';

/** How the loop asks the model for a typed answer. */
export const OUTPUT_STRATEGIES = ['auto', 'native', 'tool'] as const;
/**
 * `native`: the vendor holds the answer to the schema (`ModelRequest.output`: OpenAI's
 * `response_format`/`text.format`, Anthropic's `output_config.format`); `tool`: the model must call
 * a final tool whose arguments are the answer (every request then requires a tool call);
 * `auto` (the default): `native` when the provider has it and the schema fits strict mode, else
 * `tool`.
 */
export type OutputStrategy = (typeof OUTPUT_STRATEGIES)[number];

/** The name of the output (and of its final tool) when none is given. */
export const DEFAULT_OUTPUT_NAME = 'final_answer';
/** Answers the model may correct after a first wrong one, when `maxRetries` is not given. */
export const DEFAULT_MAX_OUTPUT_RETRIES = 2;

/** A typed final answer, as a run asks for it (`LoopOptions.output`). */
export interface OutputOptions<T = unknown> {
  /** The answer's JSON Schema, sent to the model, and the parser that validates it. */
  readonly schema: ToolSchema<T>;
  /** Names the format and the final tool: `[a-zA-Z0-9_-]{1,64}` (default `final_answer`). */
  readonly name?: string;
  /** What the answer is, for the final tool's description. */
  readonly description?: string;
  /** How to ask for it (default `auto`). */
  readonly strategy?: OutputStrategy;
  /**
   * How many wrong answers the model may correct (default 2). Each goes back to it with the
   * problems found; one more wrong answer ends the run with `OutputInvalidError`.
   */
  readonly maxRetries?: number;
}

/** An output resolved against a run's provider and tools (made by `resolveOutput`). */
export interface ResolvedOutput {
  readonly name: string;
  readonly strategy: 'native' | 'tool';
  readonly maxRetries: number;
  /** The format sent with each request (`native`). */
  readonly format?: OutputFormat;
  /** The final tool advertised with each request (`tool`). */
  readonly tool?: ToolSpec;
  /**
   * The value the user's schema reads, from what the model wrote: strict mode's nulls for
   * optional properties restored, a non-object answer unwrapped from `{ value }`.
   */
  readonly unwrap: (written: unknown) => unknown;
  /** The user's schema. */
  readonly schema: ToolSchema;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const OPTION_KEYS = ['schema', 'name', 'description', 'strategy', 'maxRetries'];

/**
 * Checks `output` and decides how this run asks for it, given the run's provider (whether it has
 * a native form: `Provider.nativeOutput`) and the names of its tools (the final tool must not take
 * one). Every mistake is a `ConfigError` naming the field under `field`. An output this function
 * made is returned as it is (a caller that resolved it early is not checked twice).
 */
export function resolveOutput(
  output: OutputOptions | ResolvedOutput,
  provider: Provider,
  toolNames: readonly string[],
  field = 'output',
): ResolvedOutput {
  if (resolvedOutputs.has(output)) return output as ResolvedOutput;
  const resolved = resolve(output as OutputOptions, provider, toolNames, field);
  resolvedOutputs.add(resolved);
  return resolved;
}

/** Outputs made by `resolveOutput`, which a run takes as they are. */
const resolvedOutputs = new WeakSet<object>();

function resolve(
  output: OutputOptions,
  provider: Provider,
  toolNames: readonly string[],
  field: string,
): ResolvedOutput {
  if (output === null || typeof output !== 'object' || Array.isArray(output))
    throw new ConfigError(
      field,
      `expected output options { schema, … }, got ${shownValue(output)}`,
    );
  assertOptions(output, OPTION_KEYS, field);
  const schema = output.schema as ToolSchema | undefined;
  if (
    schema === null ||
    typeof schema !== 'object' ||
    typeof schema.parse !== 'function' ||
    schema.jsonSchema === null ||
    typeof schema.jsonSchema !== 'object'
  ) {
    throw new ConfigError(
      `${field}.schema`,
      'expected a ToolSchema { jsonSchema, parse } (with @mh/sdk, a zod schema)',
    );
  }
  const name = output.name ?? DEFAULT_OUTPUT_NAME;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new ConfigError(`${field}.name`, `expected [a-zA-Z0-9_-]{1,64}, got ${shownValue(name)}`);
  const maxRetries = output.maxRetries ?? DEFAULT_MAX_OUTPUT_RETRIES;
  if (typeof maxRetries !== 'number' || !Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new ConfigError(
      `${field}.maxRetries`,
      `expected an integer >= 0, got ${shownValue(maxRetries)}`,
    );
  }
  const strategy = output.strategy ?? 'auto';
  if (!(OUTPUT_STRATEGIES as readonly unknown[]).includes(strategy)) {
    throw new ConfigError(
      `${field}.strategy`,
      `expected one of ${OUTPUT_STRATEGIES.join(', ')}, got ${shownValue(strategy)}`,
    );
  }
  if (output.description !== undefined && typeof output.description !== 'string')
    throw new ConfigError(`${field}.description`, 'expected a string');
  const wrapped = schema.jsonSchema.type !== 'object';
  const written: JsonSchema = wrapped
    ? {
        type: 'object',
        properties: { value: schema.jsonSchema },
        required: ['value'],
        additionalProperties: false,
      }
    : schema.jsonSchema;
  const unwrapValue = (value: unknown): unknown =>
    wrapped && value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as { value?: unknown }).value
      : value;
  const base = { name, maxRetries, schema };
  if (strategy !== 'tool' && provider.nativeOutput === true) {
    try {
      const strict = toStrictSchema(written, `${field}.schema`);
      return {
        ...base,
        strategy: 'native',
        format: { name, schema: strict.schema, strict: true },
        unwrap: (value) => unwrapValue(strict.restore(value)),
      };
    } catch (error) {
      if (strategy === 'native') throw error;
    }
  } else if (strategy === 'native') {
    throw new ConfigError(
      `${field}.strategy`,
      `provider ${provider.name} has no native typed output; use 'tool' or 'auto'`,
    );
  }
  if (toolNames.includes(name)) {
    throw new ConfigError(
      `${field}.name`,
      `a tool is already named ${name}; give the output another name`,
    );
  }
  return {
    ...base,
    strategy: 'tool',
    tool: {
      name,
      description: `${output.description ?? 'Your final answer.'} Call this tool once, when you are done, with the answer as its arguments; the run ends there.`,
      inputSchema: written,
    },
    unwrap: unwrapValue,
  };
}
