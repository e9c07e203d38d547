import {
  type ApprovalRequest,
  mapOutcomes,
  previewToolCall,
  type ToolCallEvent,
  type ToolCallPreview,
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
} from '@mh/core';
import { type KeyContext, toolLine } from '../cassette/context.js';
import type { CassetteKey } from '../cassette/format.js';

/** Writes one tool outcome as a cassette line. */
export function recordToolOutcome(context: KeyContext, outcome: ToolOutcome): void {
  const index = context.state.toolCalls++;
  context.write(
    toolLine(context.key, index, {
      call: outcome.call,
      outcome: {
        status: outcome.status,
        result: outcome.result,
        attempts: outcome.attempts,
        durationMs: outcome.durationMs,
        permission: outcome.permission,
        ...(outcome.question ? { question: outcome.question } : {}),
      },
    }),
  );
}

/**
 * `inner` with each outcome recorded as `inner` yields it: what the tool gave, before an outer
 * wrapper transforms it (the Agent's prompt-injection defence fences results with a boundary
 * drawn per agent, around this executor). A replay serves that raw outcome through the replaying
 * agent's own wrappers, so it is transformed exactly as a live call's would be.
 */
export function recordingExecutor(inner: ToolExecutor, keyContext: KeyContext): ToolExecutor {
  return mapOutcomes(inner, (outcome) => {
    recordToolOutcome(keyContext, outcome);
    return outcome;
  });
}

/**
 * A tool executor that runs calls with another one and records each outcome (result, status,
 * attempts, duration) by call, so a replay can serve it without running the tool again. Get one
 * per (case, repeat) from `cassette.tools(executor, key)` in `record` mode.
 */
export class RecordingToolExecutor implements ToolExecutor {
  readonly #recording: ToolExecutor;
  readonly #context: KeyContext;

  /** @internal Use `cassette.tools(executor, key)`. */
  constructor(inner: ToolExecutor, context: KeyContext) {
    this.#recording = recordingExecutor(inner, context);
    this.#context = context;
  }

  /** The recording this executor writes. */
  get key(): CassetteKey {
    return this.#context.key;
  }

  /** The inner executor's tools. */
  specs(): readonly ToolSpec[] {
    return this.#recording.specs();
  }

  /** The inner executor's preview (recording changes no decision). */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewToolCall(this.#recording, call);
  }

  /** The inner executor's answer: recording never hides a call that waits for a person. */
  approval(call: ToolUseBlock): Promise<ApprovalRequest | undefined> {
    return this.#recording.approval?.(call) ?? Promise.resolve(undefined);
  }

  /** Runs the calls on the inner executor, recording each outcome as it ends. */
  execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolCallEvent> {
    return this.#recording.execute(calls, context);
  }
}
