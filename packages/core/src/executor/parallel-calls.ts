import { ABORTED } from '../loop/run-signal.js';
import type { ToolUseBlock } from '../messages/message.js';
import type { ToolCallEvent, ToolExecutionContext, ToolOutcome } from '../ports/tool-executor.js';

/** A started call, settled: never rejects, so a call nobody waits for any more fails quietly. */
type Settled =
  | { readonly index: number; readonly outcome: ToolOutcome }
  | { readonly index: number; readonly error: unknown };

/**
 * The events of `calls` run side by side, as the `ToolExecutor` port orders them: each call's
 * `tool-start`, the call started (through `context.scope`, by `run`) only when the consumer pulls
 * again; then their `tool-end`s in completion order. After `context.signal` aborts it yields
 * nothing more and stops waiting. It throws what `run` or the scope throws; `run` should not
 * throw for a tool's failure.
 */
export async function* parallelCallEvents(
  calls: readonly ToolUseBlock[],
  context: ToolExecutionContext,
  run: (call: ToolUseBlock) => Promise<ToolOutcome>,
): AsyncGenerator<ToolCallEvent, void, undefined> {
  const { signal, scope } = context;
  const running = new Map<number, Promise<Settled>>();
  const start = async (index: number, call: ToolUseBlock): Promise<Settled> => {
    try {
      return { index, outcome: await (scope ? scope(call, () => run(call)) : run(call)) };
    } catch (error) {
      return { index, error };
    }
  };
  const aborted = whenAborted(signal);
  try {
    for (const [index, call] of calls.entries()) {
      if (signal.aborted) return;
      yield { type: 'tool-start', call };
      // The consumer may have cancelled while holding the start: then the call never starts.
      if (signal.aborted) return;
      running.set(index, start(index, call));
    }
    while (running.size > 0) {
      const next = await Promise.race([...running.values(), aborted.promise]);
      // Checked again because both may be settled: the abort wins over an outcome.
      if (next === ABORTED || signal.aborted) return;
      running.delete(next.index);
      if ('error' in next) throw next.error;
      yield { type: 'tool-end', outcome: next.outcome };
    }
  } finally {
    aborted.dispose();
  }
}

/** Resolves when `signal` aborts; `dispose` removes its listener (one per batch would pile up). */
function whenAborted(signal: AbortSignal): {
  readonly promise: Promise<typeof ABORTED>;
  dispose(): void;
} {
  let onAbort = (): void => {};
  const promise = new Promise<typeof ABORTED>((resolve) => {
    onAbort = (): void => resolve(ABORTED);
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
