import type { ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import type { ToolSpec } from './provider.js';
import type { AskedQuestion, Permission } from './tool.js';

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
  'interrupted',
] as const;
/**
 * How a call ended. `interrupted`: the tool asked a person a question (`ToolRunContext.interrupt`)
 * that has no answer yet; the outcome carries it in `question`, and its `result` is a placeholder
 * the loop does not keep (the call runs again, from the start, once answered).
 */
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
  /** The question the call stopped on; present exactly when `status` is `interrupted`. */
  readonly question?: AskedQuestion;
}

/**
 * What a `ToolExecutor` yields: `tool-start` before it does anything for a call (the loop opens
 * the call's `mh.tool` span and journals the call there), `tool-end` with the call's outcome
 * (the loop journals the result and ends the span). See `ToolExecutor.execute` for the order.
 */
export type ToolCallEvent =
  | {
      /** The executor is about to handle `call`; it waits to be pulled before it does. */
      readonly type: 'tool-start';
      /** The call about to be handled. */
      readonly call: ToolUseBlock;
    }
  | {
      /** A started call is answered. */
      readonly type: 'tool-end';
      /** Its outcome; `outcome.call` is the call its `tool-start` named. */
      readonly outcome: ToolOutcome;
    };

/** Context of one batch of tool calls. */
export interface ToolExecutionContext {
  /** Aborts the whole batch (cancellation or run timeout). */
  readonly signal: AbortSignal;
  /**
   * Runs `run`, all the work for one started call (validation, policy, attempts), in that call's
   * trace context and returns what `run` returns: the loop makes the call's `mh.tool` span the
   * active span there, so the spans a tool opens itself (an MCP request, an instrumented HTTP
   * client) nest under it. An executor calls it once per call, after that call's `tool-start` was
   * pulled; without it, it calls `run` directly.
   *
   * Why a function and not only the events: a tool's asynchronous work keeps the context it
   * started in, and an executor starts its calls in its own tasks (parallel reads side by side),
   * which no event the loop receives can reach. It is journal-free: it only sets the active span,
   * never waits and never calls the loop's hooks; durability hangs on `tool-start` alone.
   */
  readonly scope?: <T>(call: ToolUseBlock, run: () => T) => T;
  /**
   * Ids of calls a person approved (`agent.resume({ decisions })`): they waited because
   * `ToolExecutor.approval` said so, and the approval is the answer, so the executor runs them
   * without asking its permission policy again (a policy that would ask, or deny for want of
   * someone to ask, must not undo the person's yes). Look-up and argument checks still apply.
   * Absent for an ordinary turn.
   */
  readonly approved?: ReadonlySet<string>;
  /**
   * A person's answers to the questions a call asked (`ToolRunContext.interrupt`), by call id,
   * oldest first: the call runs again from the start and its n-th question gets the n-th answer;
   * a question past them interrupts the call again (an `interrupted` outcome). Absent for an
   * ordinary turn (every question interrupts).
   */
  readonly answers?: ReadonlyMap<string, readonly unknown[]>;
}

/**
 * @deprecated The loop no longer wraps calls in hooks: `ToolExecutor.execute` yields
 * `ToolCallEvent`s and the loop traces and journals each call from them; `context.scope` keeps
 * the trace context. Kept so code that names the type still compiles; nothing calls it.
 */
export interface ToolCallHooks {
  /** @deprecated Not called any more; see `ToolCallEvent`. */
  around(call: ToolUseBlock, execute: () => Promise<ToolOutcome>): Promise<ToolOutcome>;
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
  /** What the tool declares about running twice (`Tool.idempotent`), when it says. */
  readonly idempotent?: boolean;
  /**
   * Why, for `denied` (the policy's reason, as the model would read it), `invalid-arguments` (the
   * problems) and `undecidable`; absent otherwise.
   */
  readonly reason?: string;
}

/**
 * Runs the tool calls of one assistant turn: the port `@mh/tools`' executor implements. It decides
 * policy, validation, timeouts and parallelism, and never throws for a tool's failure. Wrapping
 * executors that only change outcomes are one `mapOutcomes(inner, fn)`.
 */
/** Why a call waits for a person's approval instead of running (see `ToolExecutor.approval`). */
export interface ApprovalRequest {
  /** Why, as the person reads it: `write_file needs approval`. */
  readonly reason: string;
  /** The permission the tool declares. */
  readonly permission?: Permission;
}

export interface ToolExecutor {
  /** The tools to advertise to the model, in a stable order. */
  specs(): readonly ToolSpec[];
  /**
   * Handles `calls`, yielding ordered events, and goes on only when pulled. The contract:
   *
   * - For each call it handles it yields `tool-start` first, before any work for the call
   *   (validation and the permission policy come after the start, inside it), and does nothing
   *   for that call until the consumer pulls the next event. The loop journals the call
   *   (`LoopHooks.toolStart`) before it pulls again, so the journal entry is durable before the
   *   tool runs.
   * - Exactly one `tool-end` per started call, after its start; none for a call not started.
   * - Calls that run in parallel (consecutive `read` calls): each one's `tool-start` is yielded,
   *   and pulled, before that call runs; their `tool-end`s come in completion order.
   * - After `context.signal` aborts it yields nothing more (not even an outcome that finished
   *   before) and stops waiting for its tools; the loop answers the rest as cancelled. A
   *   consumer that stops pulling (`return()`) leaves later calls unstarted.
   * - It throws only for a failure of its own (or of `context.scope`), never for a tool's.
   * - A call whose tool asked a question without an answer ends `interrupted` (see
   *   `ToolCallStatus`); after it the executor starts only `read` calls: later writes and execs
   *   stay unstarted and wait with it, in order, as after an approval.
   *
   * A custom executor written for the earlier port, yielding bare `ToolOutcome`s, still works for
   * now: the loop then reports each call's start and end together, after the tool ran, and warns
   * once (deprecated).
   */
  execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolCallEvent>;
  /**
   * Says what `execute` would do with `call` (look-up, argument checks, permission policy) without
   * running the tool and without asking anyone: no approval prompt, no side effect. A replay uses
   * it to notice that a served recorded outcome no longer matches the current tools and policy.
   * An unknown tool or bad arguments are answers, not throws. Optional: an executor without it
   * cannot be previewed.
   */
  /**
   * Whether `call` must wait for a person's approval before it runs (its tool's `needsApproval`):
   * why, or undefined when it may run. Never runs the tool and never asks anyone. The loop asks
   * before a turn's calls run and holds such calls back: the run ends `interrupted`, and
   * `agent.resume({ decisions })` runs the approved ones (through `execute`, which does not ask
   * again). A call with an unknown tool or bad arguments needs none (`execute` answers it).
   * Optional: without it no call waits; a wrapping executor forwards it.
   */
  approval?(call: ToolUseBlock): Promise<ApprovalRequest | undefined>;
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
