import { parallelCallEvents } from '../executor/parallel-calls.js';
import type { ToolUseBlock } from '../messages/message.js';
import type { ToolSpec } from '../ports/provider.js';
import type { ToolOutput } from '../ports/tool.js';
import type {
  ToolCallEvent,
  ToolCallStatus,
  ToolExecutionContext,
  ToolExecutor,
  ToolOutcome,
} from '../ports/tool-executor.js';

/** A stub tool body: receives the arguments and the batch signal. Throwing is a tool failure. */
export type StubTool = (
  input: unknown,
  signal: AbortSignal,
  call: ToolUseBlock,
) => Promise<ToolOutput>;

/** Answers with its arguments as JSON. */
export const echoTool: StubTool = async (input) => JSON.stringify(input);

/** Never settles and ignores its signal: the tool that must not be able to hang a run. */
export const hangForeverTool: StubTool = () => new Promise<never>(() => {});

/** Settles only when its signal aborts, then throws. */
export const hangUntilAbortedTool: StubTool = (_input, signal) =>
  new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(new Error('aborted'));
    else signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });

/**
 * A ToolExecutor over named stub tools. Calls run in parallel and outcomes are yielded in
 * completion order, each call's start first; after the signal aborts nothing more is yielded (as
 * the port requires). An
 * unknown name gets an `unknown-tool` outcome; a throwing tool an `error` outcome.
 */
export class StubExecutor implements ToolExecutor {
  /** Every call that was started, in start order. */
  readonly started: ToolUseBlock[] = [];
  /** Every outcome produced, in completion order (including ones not yielded after an abort). */
  readonly finished: ToolOutcome[] = [];
  readonly #tools: ReadonlyMap<string, StubTool>;

  /** Serves the named stub tools. */
  constructor(tools: Readonly<Record<string, StubTool>>) {
    this.#tools = new Map(Object.entries(tools));
  }

  /** One spec per tool, with an open object schema. */
  specs(): readonly ToolSpec[] {
    return [...this.#tools.keys()].map((name) => ({
      name,
      description: `stub tool ${name}`,
      inputSchema: { type: 'object' },
    }));
  }

  /**
   * Runs `calls` in parallel, as the port orders it: each call's `tool-start`, the call run once
   * that start was pulled, then their `tool-end`s in completion order.
   */
  execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolCallEvent> {
    return parallelCallEvents(calls, context, async (call) => {
      const outcome = await this.#runOne(call, context.signal);
      this.finished.push(outcome);
      return outcome;
    });
  }

  async #runOne(call: ToolUseBlock, signal: AbortSignal): Promise<ToolOutcome> {
    this.started.push(call);
    const tool = this.#tools.get(call.name);
    if (tool === undefined) {
      return outcomeOf(call, 'unknown-tool', `Unknown tool: ${call.name}`, true);
    }
    try {
      const output = await tool(call.input, signal, call);
      if (typeof output === 'string') return outcomeOf(call, 'ok', output, false);
      const isError = output.isError === true;
      return {
        call,
        result: { type: 'tool_result', toolUseId: call.id, content: output.content, isError },
        status: isError ? 'error' : 'ok',
        attempts: 1,
        durationMs: 0,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return outcomeOf(call, signal.aborted ? 'cancelled' : 'error', message, true);
    }
  }
}

function outcomeOf(
  call: ToolUseBlock,
  status: ToolCallStatus,
  text: string,
  isError: boolean,
): ToolOutcome {
  return {
    call,
    result: { type: 'tool_result', toolUseId: call.id, content: [{ type: 'text', text }], isError },
    status,
    attempts: status === 'unknown-tool' ? 0 : 1,
    durationMs: 0,
  };
}
