import type { ImageBlock, TextBlock } from '../messages/message.js';
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

/**
 * A question a running tool asks a person (`ToolRunContext.interrupt`): its text, or its text with
 * a JSON Schema the answer must satisfy (checked on resume before the tool sees it).
 */
export type ToolQuestion =
  | string
  | {
      /** What the person reads. Not empty. */
      readonly question: string;
      /** JSON Schema of the answer (default: any JSON value). */
      readonly schema?: JsonSchema;
    };

/**
 * A question a call stopped on, as journaled and reported: the question, and the answers the
 * call already got to its earlier questions (in order), which it gets again when it runs again.
 */
export interface AskedQuestion {
  /** What the person reads. */
  readonly question: string;
  /** JSON Schema of the answer, when the tool gave one. */
  readonly schema?: JsonSchema;
  /** The answers to the call's earlier questions, oldest first (JSON values). */
  readonly answers: readonly unknown[];
}

/** What a running tool receives besides its arguments. */
export interface ToolRunContext {
  /** Aborts on cancellation, run timeout or the tool's own `timeoutMs`. Honour it. */
  readonly signal: AbortSignal;
  /** The id of the tool call being answered. */
  readonly callId: string;
  /** 1-based attempt number (idempotent tools may be retried on transient errors). */
  readonly attempt: number;
  /**
   * Asks a person `question` and resolves to their answer (a JSON value). The first time, there
   * is no answer yet: it rejects with `ToolInterrupt` and the call ends without a result; the run
   * ends `interrupted` with the question in `result.interrupts`. `agent.resume({ decisions: [{
   * callId, answer }] })` runs the call again from the start, and then the n-th `interrupt` of the
   * call resolves to the n-th answer, so a tool can ask several questions across resumes. Let the
   * rejection propagate (catching it does not help: the call is interrupted all the same), and
   * keep side effects after the questions, since the code before them runs again on resume.
   * Absent when the executor cannot interrupt (then ask no question).
   */
  readonly interrupt?: (question: ToolQuestion) => Promise<unknown>;
}

/** What a tool returns: plain text, or blocks with an explicit error flag. */
export type ToolOutput =
  | string
  | { readonly content: readonly (TextBlock | ImageBlock)[]; readonly isError?: boolean };

/**
 * Decides from a call's validated arguments whether a person must approve it. Declared as a
 * method so a `Tool<Input>` stays a `Tool<unknown>`, as its `run` does.
 */
export type ApprovalRule<Input> = {
  rule(input: Input, context: { readonly callId: string }): boolean | Promise<boolean>;
}['rule'];

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
  /**
   * Whether a person must approve each call before it runs: `true`, or a function of the
   * validated arguments. Such a call does not run: the run ends `interrupted` with the call in
   * `result.interrupts`, and `agent.resume({ decisions })` runs it once approved.
   */
  readonly needsApproval?: boolean | ApprovalRule<Input>;
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
