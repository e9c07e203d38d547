import type { ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import type { JsonSchema, ToolSpec } from './provider.js';

/** What a tool may do, from least to most dangerous. */
export const PERMISSIONS = ['read', 'write', 'exec'] as const;
/** What a tool may do: `read` has no side effects; `write` changes state; `exec` runs code. */
export type Permission = (typeof PERMISSIONS)[number];

/** The outcome of parsing a tool's arguments. Parsing never throws. */
export type ParseResult<T> =
  | { readonly success: true; readonly value: T }
  | {
      /** False: the arguments are invalid. */
      readonly success: false;
      /** One line per problem, each naming the path: `a: expected number, received string`. */
      readonly issues: readonly string[];
    };

/**
 * A tool's argument schema as core sees it: a JSON Schema for the model and a parser for the loop.
 * Libraries (zod in `@mh/tools`, ajv in `@mh/mcp`) produce it; core depends on none of them.
 */
export interface ToolSchema<T = unknown> {
  /** JSON Schema of the arguments object, sent to the model. */
  readonly jsonSchema: JsonSchema;
  /** Validates and converts raw arguments from the model. */
  parse(input: unknown): ParseResult<T>;
}

/** What a running tool receives besides its arguments. */
export interface ToolRunContext {
  /** Aborts on cancellation, run timeout or the tool's own `timeoutMs`. Honour it. */
  readonly signal: AbortSignal;
  /** The id of the tool call being answered. */
  readonly callId: string;
  /** 1-based attempt number (idempotent tools may be retried on transient errors). */
  readonly attempt: number;
}

/** What a tool returns: plain text, or blocks with an explicit error flag. */
export type ToolOutput =
  | string
  | { readonly content: readonly (TextBlock | ImageBlock)[]; readonly isError?: boolean };

/** A tool the model can call. `@mh/tools`' `defineTool` and `@mh/mcp` produce these. */
export interface Tool<Input = unknown> {
  /** Unique name matching `[a-zA-Z0-9_-]{1,64}`. */
  readonly name: string;
  /** What it does and when to use it; the model reads this. */
  readonly description: string;
  /** Argument schema and parser. */
  readonly schema: ToolSchema<Input>;
  /** What it may do; decides the default policy and parallelism (only `read` runs in parallel). */
  readonly permission: Permission;
  /** Per-call time limit in milliseconds; none when absent. */
  readonly timeoutMs?: number;
  /** True when running it twice has the effect of running it once (safe to retry or re-run). */
  readonly idempotent?: boolean;
  /**
   * True when it is a pure function of its input: no side effect, the same output for the same
   * input. A replay runs such a tool again and compares its result with the recording, as it
   * does for `read` tools (others are served from the recording).
   */
  readonly deterministic?: boolean;
  /** Runs the tool. Throwing means the call failed; the model sees the message as an error result. */
  run(input: Input, context: ToolRunContext): Promise<ToolOutput>;
}

/** The advertised spec of a tool. */
export function toolSpec(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: tool.schema.jsonSchema };
}

/** A request to run a tool, as a permission policy sees it. */
export interface PermissionRequest {
  /** The tool's name. */
  readonly toolName: string;
  /** The permission it declares. */
  readonly permission: Permission;
  /** The validated arguments. */
  readonly input: unknown;
  /** The call id. */
  readonly callId: string;
}

/** A policy's answer. A denial's `reason` reaches the model. */
export type PermissionDecision =
  | { readonly allow: true }
  | { readonly allow: false; readonly reason: string };

/**
 * What a policy would answer without asking anyone: a decision, or `'ask'` when only a human's
 * answer (an approval prompt) would decide.
 */
export type PermissionPreview = PermissionDecision | 'ask';

/** Decides whether a tool call may run. A subprocess sandbox can plug in here. */
export interface PermissionPolicy {
  /** Allows or denies one call; may ask a human (asynchronously). */
  check(request: PermissionRequest): PermissionDecision | Promise<PermissionDecision>;
  /**
   * Says what `check` would answer for `request` without side effects: it never asks a human,
   * prompts, logs a decision or spends a one-time grant. Answers `'ask'` where `check` would ask
   * someone. Optional: a policy without it cannot be previewed (a replay then compares no
   * decisions for its calls).
   */
  preview?(request: PermissionRequest): PermissionPreview | Promise<PermissionPreview>;
}

/** How a call ended. */
export const TOOL_CALL_STATUSES = [
  'ok',
  'error',
  'timeout',
  'denied',
  'invalid-arguments',
  'unknown-tool',
  'cancelled',
  'skipped',
] as const;
/** How a call ended. */
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** The result of one tool call with what the executor learnt running it. */
export interface ToolOutcome {
  /** The call answered. */
  readonly call: ToolUseBlock;
  /** The result for the model (`isError` unless `status` is `ok`). */
  readonly result: ToolResultBlock;
  /** How it ended. */
  readonly status: ToolCallStatus;
  /** Attempts made (more than 1 only for retried idempotent tools). */
  readonly attempts: number;
  /** Wall time, in milliseconds. */
  readonly durationMs: number;
  /** The permission of the tool, when it exists. */
  readonly permission?: Permission;
}

/** Hooks the loop gives the executor so each call can be traced and journaled. */
export interface ToolCallHooks {
  /**
   * Wraps everything done for one call (validation, policy, runs, retries). An executor calls it
   * exactly once per call it handles; the hook must call `execute` once and return its outcome.
   */
  around(call: ToolUseBlock, execute: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
}

/** Context of one batch of tool calls. */
export interface ToolExecutionContext {
  /** Aborts the whole batch (cancellation or run timeout). */
  readonly signal: AbortSignal;
  /** Tracing and journaling hooks. */
  readonly hooks?: ToolCallHooks;
}

/** What an executor would do with a call, as `ToolExecutor.preview` says without running it. */
export const TOOL_CALL_PREVIEW_DECISIONS = [
  'run',
  'denied',
  'unknown-tool',
  'invalid-arguments',
  'ask',
  'undecidable',
] as const;
/**
 * `run`: the policy allows it and the tool would run; `denied`: the policy would refuse it;
 * `unknown-tool`: no tool has that name; `invalid-arguments`: the arguments would be rejected
 * before the policy is asked; `ask`: the policy would ask a human, so only that answer decides;
 * `undecidable`: the executor cannot tell without running it (e.g. its policy has no `preview`).
 */
export type ToolCallPreviewDecision = (typeof TOOL_CALL_PREVIEW_DECISIONS)[number];

/** What would happen to one tool call, found without running the tool or asking anyone. */
export interface ToolCallPreview {
  /** What the executor would do with the call. */
  readonly decision: ToolCallPreviewDecision;
  /** The permission the tool declares, when the tool exists. */
  readonly permission?: Permission;
  /** True when the tool declares itself deterministic (`Tool.deterministic`). */
  readonly deterministic?: boolean;
  /**
   * Why, for `denied` (the policy's reason, as the model would read it), `invalid-arguments` (the
   * problems) and `undecidable`; absent otherwise.
   */
  readonly reason?: string;
}

/**
 * Runs the tool calls of one assistant turn: the port `@mh/tools`' executor implements. It decides
 * policy, validation, timeouts and parallelism, and never throws for a tool's failure.
 */
export interface ToolExecutor {
  /** The tools to advertise to the model, in a stable order. */
  specs(): readonly ToolSpec[];
  /**
   * Runs `calls` and yields one outcome per call as each finishes (completion order). After
   * `context.signal` aborts it yields nothing more; the loop answers the rest as cancelled.
   */
  execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolOutcome>;
  /**
   * Says what `execute` would do with `call` (look-up, argument checks, permission policy) without
   * running the tool and without asking anyone: no approval prompt, no side effect. A replay uses
   * it to notice that a served recorded outcome no longer matches the current tools and policy.
   * An unknown tool or bad arguments are answers, not throws. Optional: an executor without it
   * cannot be previewed.
   */
  preview?(call: ToolUseBlock): Promise<ToolCallPreview>;
}

/**
 * `executor.preview(call)`, or `undecidable` for an executor without `preview`: what a wrapping
 * executor (fencing, recording, replaying) answers so that wrapping never hides a preview.
 */
export function previewToolCall(
  executor: ToolExecutor,
  call: ToolUseBlock,
): Promise<ToolCallPreview> {
  if (typeof executor.preview === 'function') return executor.preview(call);
  return Promise.resolve({
    decision: 'undecidable',
    reason: 'the tool executor cannot preview calls',
  });
}
