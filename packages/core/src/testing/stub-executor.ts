import type { ToolUseBlock } from '../messages/message.js';
import type { ToolSpec } from '../ports/provider.js';
import type {
  ToolCallStatus,
  ToolExecutionContext,
  ToolExecutor,
  ToolOutcome,
  ToolOutput,
} from '../ports/tool.js';
import { AsyncQueue } from '../support/async-queue.js';

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

const ABORTED = Symbol('aborted');

/** Resolves when `signal` aborts; `dispose` removes its listener (one per batch would pile up). */
function whenAborted(signal: AbortSignal): { promise: Promise<typeof ABORTED>; dispose(): void } {
  let onAbort = (): void => {};
  const promise = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * A ToolExecutor over named stub tools. Calls run in parallel and outcomes are yielded in
 * completion order; after the signal aborts nothing more is yielded (as the port requires). An
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

  /** Runs `calls` in parallel and yields their outcomes in completion order. */
  async *execute(
    calls: readonly ToolUseBlock[],
    context: ToolExecutionContext,
  ): AsyncIterable<ToolOutcome> {
    if (calls.length === 0) return;
    const queue = new AsyncQueue<ToolOutcome>();
    let pending = calls.length;
    for (const call of calls) {
      const execute = (): Promise<ToolOutcome> => this.#runOne(call, context.signal);
      const outcome = context.hooks ? context.hooks.around(call, execute) : execute();
      outcome.then(
        (value) => {
          this.finished.push(value);
          queue.push(value);
          pending--;
          if (pending === 0) queue.close();
        },
        (error: unknown) => queue.fail(error),
      );
    }
    const aborted = whenAborted(context.signal);
    try {
      for (;;) {
        const next = await Promise.race([queue.next(), aborted.promise]);
        if (next === ABORTED || next.done || context.signal.aborted) return;
        yield next.value;
      }
    } finally {
      aborted.dispose();
    }
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
