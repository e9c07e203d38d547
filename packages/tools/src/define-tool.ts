import {
  type ApprovalRule,
  ConfigError,
  type Permission,
  type Tool,
  type ToolOutput,
  type ToolRunContext,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import type * as z from 'zod';
import { assertToolFields } from './tool-fields.js';
import { toolWithSchema } from './tool-with-schema.js';
import { zodToolSchema } from './zod-tool-schema.js';

/** What `defineTool` takes: a tool's metadata, its zod argument schema and its implementation. */
export interface ToolDefinition<Schema extends z.ZodObject> {
  /** Unique name matching `^[a-zA-Z0-9_-]{1,64}$`; the model calls the tool by it. */
  readonly name: string;
  /** What the tool does and when to use it; the model reads this. Non-empty. */
  readonly description: string;
  /** The arguments as a zod object schema; the JSON Schema sent to the model comes from it. */
  readonly input: Schema;
  /** What the tool may do: `read` tools run in parallel and are allowed by the default policy. */
  readonly permission: Permission;
  /** Per-call time limit in milliseconds (positive, finite); none when absent. */
  readonly timeoutMs?: number;
  /** True when running twice equals running once; only such tools are retried. Default false. */
  readonly idempotent?: boolean;
  /**
   * True when the tool is a pure function of its input (no side effect, same output for the same
   * input): a replay runs it again and compares its result, as for `read` tools. Default false.
   */
  readonly deterministic?: boolean;
  /**
   * Whether a person must approve each call before it runs: `true`, or a function of the parsed
   * arguments. Such a call ends the run `interrupted`; `agent.resume({ decisions })` runs it once
   * approved. Default: no approval.
   */
  readonly needsApproval?: boolean | ApprovalRule<z.output<Schema>>;
  /**
   * Runs the tool with the parsed, typed arguments. Return text or `{ content, isError }`; throw to
   * fail the call (the model sees the message). Honour `context.signal`.
   */
  run(input: z.output<Schema>, context: ToolRunContext): ToolOutput | Promise<ToolOutput>;
}

const DEFINITION_KEYS: readonly string[] = [
  'name',
  'description',
  'input',
  'permission',
  'timeoutMs',
  'idempotent',
  'deterministic',
  'needsApproval',
  'run',
];

/**
 * Defines a tool from a zod schema. Throws `ConfigError` naming the bad field (`name`,
 * `description`, `input`, `permission`, `timeoutMs`, `idempotent`, `deterministic` or `run`) or an
 * unknown key.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineTool } from '@mh/tools';
 *
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   permission: 'read',
 *   run: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export function defineTool<Schema extends z.ZodObject>(
  definition: ToolDefinition<Schema>,
): Tool<z.output<Schema>> {
  if (typeof definition !== 'object' || definition === null) {
    throw new ConfigError('definition', 'expected an object');
  }
  // A misspelt key (`timeout` for `timeoutMs`) would otherwise be dropped without a word.
  assertOptions(definition, DEFINITION_KEYS, '');
  assertToolFields(definition);
  const { input, ...fields } = definition;
  return toolWithSchema({ ...fields, schema: zodToolSchema(input) });
}
