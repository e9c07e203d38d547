import {
  type ToolExecutionContext,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSpec,
  type ToolUseBlock,
  toolResult,
} from '@mh/core';
import { AsyncQueue } from '@mh/core/internal';

/** A test tool: gets the arguments and the signal; throwing is a failed call. */
export type TestTool = (input: unknown, signal: AbortSignal) => Promise<string>;

/**
 * A `ToolExecutor` that runs every call of a turn in parallel through the loop's tracing hooks
 * and yields outcomes as they finish; after an abort it yields nothing more.
 */
export class ParallelExecutor implements ToolExecutor {
  readonly #tools: ReadonlyMap<string, TestTool>;

  constructor(tools: Readonly<Record<string, TestTool>>) {
    this.#tools = new Map(Object.entries(tools));
  }

  specs(): readonly ToolSpec[] {
    return [...this.#tools.keys()].map((name) => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
    }));
  }

  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolOutcome> {
    const queue = new AsyncQueue<ToolOutcome>();
    let pending = calls.length;
    for (const call of calls) {
      const run = (): Promise<ToolOutcome> => this.#run(call, context.signal);
      (context.hooks ? context.hooks.around(call, run) : run()).then(
        (outcome) => {
          queue.push(outcome);
          if (--pending === 0) queue.close();
        },
        (error: unknown) => queue.fail(error),
      );
    }
    while (!context.signal.aborted) {
      const next = await queue.next();
      if (next.done || context.signal.aborted) return;
      yield next.value;
    }
  }

  async #run(call: ToolUseBlock, signal: AbortSignal): Promise<ToolOutcome> {
    const tool = this.#tools.get(call.name);
    const started = performance.now();
    const outcome = (status: ToolOutcome['status'], text: string): ToolOutcome => ({
      call,
      result: toolResult(call.id, text, status !== 'ok'),
      status,
      attempts: 1,
      durationMs: performance.now() - started,
    });
    if (tool === undefined) return outcome('unknown-tool', `Unknown tool: ${call.name}`);
    try {
      return outcome('ok', await tool(call.input, signal));
    } catch (error) {
      return outcome(
        signal.aborted ? 'cancelled' : 'error',
        error instanceof Error ? error.message : String(error),
      );
    }
  }
}
