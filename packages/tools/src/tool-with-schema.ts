import type { Permission, Tool, ToolOutput, ToolRunContext, ToolSchema } from '@mh/core';

/** A tool's fields with its schema, already checked (`assertToolFields`) or written by us. */
export interface ToolFieldsWithSchema<Input> {
  /** The tool's name. */
  readonly name: string;
  /** What the tool does; the model reads it. */
  readonly description: string;
  /** The arguments' JSON Schema and parser. */
  readonly schema: ToolSchema<Input>;
  /** What the tool may do. */
  readonly permission: Permission;
  /** Per-call time limit in milliseconds; none when absent. */
  readonly timeoutMs?: number;
  /** True when running twice equals running once. Default false. */
  readonly idempotent?: boolean;
  /** True when it is a pure function of its input (a replay runs it again). Default false. */
  readonly deterministic?: boolean;
  /** Whether a person must approve each call (see `Tool.needsApproval`). */
  readonly needsApproval?: Tool<Input>['needsApproval'];
  /** Runs the tool with the parsed arguments. */
  run(input: Input, context: ToolRunContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * The frozen `Tool` of `fields`: what `defineTool` makes with a zod schema's `ToolSchema`, and the
 * built-in tools with a plain JSON Schema's (`plainToolSchema`), which spares them loading zod.
 */
export function toolWithSchema<Input>(fields: ToolFieldsWithSchema<Input>): Tool<Input> {
  const run = fields.run;
  const tool: Tool<Input> = {
    name: fields.name,
    description: fields.description,
    schema: fields.schema,
    permission: fields.permission,
    ...(fields.timeoutMs === undefined ? {} : { timeoutMs: fields.timeoutMs }),
    // Kept as the author said it, absent included: a read-only tool that says nothing may run
    // again after a crash, one that says `idempotent: false` may not (see the Agent's recovery).
    ...(fields.idempotent === undefined ? {} : { idempotent: fields.idempotent }),
    ...(fields.deterministic === true ? { deterministic: true } : {}),
    ...(fields.needsApproval === undefined || fields.needsApproval === false
      ? {}
      : { needsApproval: fields.needsApproval }),
    // Wrapped in an async function so a synchronous throw becomes a rejected promise.
    run: async (input, context) => run(input, context),
  };
  return Object.freeze(tool);
}
