import type {
  ToolExecutionContext,
  ToolExecutor,
  ToolOutcome,
  ToolSpec,
  ToolUseBlock,
} from '@mh/core';
import { type KeyContext, toolLine } from './cassette-context.js';
import type { CassetteKey } from './cassette-format.js';

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

  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncGenerator<ToolOutcome, void, undefined> {
    for await (const outcome of this.#inner.execute(calls, context)) {
      recordToolOutcome(this.#context, outcome);
      yield outcome;
    }
  }
}
