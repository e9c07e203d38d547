import {
  previewToolCall,
  type ToolCallHooks,
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
      },
    }),
  );
}

/**
 * Runs `calls` on `inner` and records each call's outcome as the innermost `around` hook sees it:
 * what the tool gave, before outer hooks transform it (the Agent's prompt-injection defence fences
 * results inside the hook chain, with a boundary drawn per agent). A replay serves that raw
 * outcome through the replaying agent's own hooks, so it is transformed exactly as a live call's
 * would be. An executor that ignores the hooks is recorded from the outcomes it yields.
 */
export async function* executeRecording(
  inner: ToolExecutor,
  calls: readonly ToolUseBlock[],
  context: ToolExecutionContext,
  keyContext: KeyContext,
): AsyncGenerator<ToolOutcome, void, undefined> {
  const outer = context.hooks;
  const recorded = new Set<string>();
  const hooks: ToolCallHooks = {
    around: (call, execute) => {
      const run = async (): Promise<ToolOutcome> => {
        const outcome = await execute();
        recorded.add(outcome.call.id);
        recordToolOutcome(keyContext, outcome);
        return outcome;
      };
      return outer ? outer.around(call, run) : run();
    },
  };
  for await (const outcome of inner.execute(calls, { ...context, hooks })) {
    if (!recorded.has(outcome.call.id)) recordToolOutcome(keyContext, outcome);
    yield outcome;
  }
}

/**
 * A tool executor that runs calls with another one and records each outcome (result, status,
 * attempts, duration) by call, so a replay can serve it without running the tool again. Get one
 * per (case, repeat) from `cassette.tools(executor, key)` in `record` mode.
 */
export class RecordingToolExecutor implements ToolExecutor {
  readonly #inner: ToolExecutor;
  readonly #context: KeyContext;

  /** @internal Use `cassette.tools(executor, key)`. */
  constructor(inner: ToolExecutor, context: KeyContext) {
    this.#inner = inner;
    this.#context = context;
  }

  /** The recording this executor writes. */
  get key(): CassetteKey {
    return this.#context.key;
  }

  specs(): readonly ToolSpec[] {
    return this.#inner.specs();
  }

  /** The inner executor's preview (recording changes no decision). */
  preview(call: ToolUseBlock): Promise<ToolCallPreview> {
    return previewToolCall(this.#inner, call);
  }

  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolOutcome, void, undefined> {
    yield* executeRecording(this.#inner, calls, context, this.#context);
  }
}
