import {
  CancelledError,
  type Clock,
  type Tool,
  type ToolOutput,
  type ToolQuestion,
  ToolTimeoutError,
} from '@mh/core';

/** Why a timeout's timer is stopped: the attempt settled first. */
const SETTLED = 'settled';

/** One attempt at running a tool. */
export interface AttemptOptions {
  /** The validated arguments. */
  readonly input: unknown;
  /** The id of the call being answered. */
  readonly callId: string;
  /** 1-based attempt number. */
  readonly attempt: number;
  /** The batch's signal: aborting it cancels the attempt. */
  readonly signal: AbortSignal;
  /** Times the tool's `timeoutMs`. */
  readonly clock: Clock;
  /** The tool's `context.interrupt` (see `questionAsker`). */
  readonly interrupt?: (question: ToolQuestion) => Promise<unknown>;
}

/**
 * Runs `tool` once. The tool's signal aborts at its `timeoutMs` or when the batch aborts, and
 * this function does not wait for a tool that ignores it: it rejects at once with
 * `ToolTimeoutError` or `CancelledError`, leaving the tool's promise behind.
 */
export async function runAttempt(tool: Tool, options: AttemptOptions): Promise<ToolOutput> {
  const { signal, clock } = options;
  if (signal.aborted) throw new CancelledError('Tool call cancelled', { cause: signal.reason });
  const toolController = new AbortController();
  const timeoutMs = tool.timeoutMs;
  // Only a timeout arms a timer to stop; without one nothing listens, and nothing is aborted.
  const timerController = timeoutMs === undefined ? undefined : new AbortController();
  let onAbort = (): void => {};
  const cancelled = new Promise<never>((_resolve, reject) => {
    onAbort = (): void => {
      toolController.abort(signal.reason);
      reject(new CancelledError('Tool call cancelled', { cause: signal.reason }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const context = {
    signal: toolController.signal,
    callId: options.callId,
    attempt: options.attempt,
    ...(options.interrupt ? { interrupt: options.interrupt } : {}),
  };
  // Promise.race subscribes to every racer, so a loser's late rejection is never unhandled.
  const racers: Promise<ToolOutput>[] = [
    (async () => tool.run(options.input, context))(),
    cancelled,
  ];
  if (timeoutMs !== undefined && timerController) {
    racers.push(
      clock.sleep(timeoutMs, timerController.signal).then(() => {
        const error = new ToolTimeoutError(tool.name, timeoutMs);
        toolController.abort(error);
        throw error;
      }),
    );
  }
  try {
    return await Promise.race(racers);
  } finally {
    // A plain reason: abort() without one builds a DOMException (a stack trace) per call.
    timerController?.abort(SETTLED);
    signal.removeEventListener('abort', onAbort);
  }
}
