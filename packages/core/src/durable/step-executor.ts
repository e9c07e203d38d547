import type { ToolUseBlock } from '../messages/message.js';
import type { StepRunner } from '../ports/step-runner.js';
import type {
  ToolCallEvent,
  ToolExecutionContext,
  ToolExecutor,
  ToolOutcome,
} from '../ports/tool-executor.js';

/** The text the model reads for a non-idempotent call a crash cut off (it is not run again). */
export const UNKNOWN_OUTCOME_TEXT: string =
  'The outcome of this call is unknown: the run stopped while it was running, and it was not ' +
  'run again because it is not idempotent. Check its effect before retrying.';

/**
 * `inner` with each tool call run as one durable step (`tool:<name>`), one call at a time, so a
 * replay serves a finished call's recorded outcome without running it again.
 *
 * A step may be cut off after its tool ran and before the engine recorded it; the engine then
 * runs the step again. That is fine for a call that may safely run again: its tool is idempotent,
 * or it is `read` and does not say `idempotent: false` (as `inner.preview` tells). Any other
 * call is claimed first, in a step of its own (`claim:<name>`); on a replay that finds the claim
 * recorded but not the call, the call may have run, so it is not run again: the model gets an
 * error result saying its outcome is unknown. A non-idempotent tool runs at most once.
 *
 * Calls run one after another (parallel reads too): a replay must take the same steps in the same
 * order.
 */
export function stepExecutor(inner: ToolExecutor, steps: StepRunner): ToolExecutor {
  const durable: ToolExecutor = {
    specs: () => inner.specs(),
    async *execute(
      calls: readonly ToolUseBlock[],
      context: ToolExecutionContext,
    ): AsyncIterable<ToolCallEvent> {
      for (const call of calls) {
        if (context.signal.aborted) return;
        yield { type: 'tool-start', call };
        // With the call's span active, the engine's step spans nest under it.
        const run = (): Promise<ToolOutcome | undefined> => runCall(inner, steps, call, context);
        const outcome = await (context.scope ? context.scope(call, run) : run());
        if (outcome === undefined || context.signal.aborted) return;
        yield { type: 'tool-end', outcome };
      }
    },
  };
  if (typeof inner.approval === 'function') {
    const approval = inner.approval.bind(inner);
    Object.assign(durable, { approval });
  }
  if (typeof inner.preview === 'function') {
    const preview = inner.preview.bind(inner);
    Object.assign(durable, { preview });
  }
  return durable;
}

/** Runs one call as a step (claimed first unless it may run again); undefined when aborted. */
async function runCall(
  inner: ToolExecutor,
  steps: StepRunner,
  call: ToolUseBlock,
  context: ToolExecutionContext,
): Promise<ToolOutcome | undefined> {
  const mayRepeat = await mayRunAgain(inner, call);
  let claimedNow = false;
  if (!mayRepeat) {
    await steps.step({ name: `claim:${call.name}`, kind: 'claim', retries: false }, async () => {
      claimedNow = true;
      return true;
    });
  }
  return await steps.step<ToolOutcome | undefined>(
    { name: `tool:${call.name}`, kind: 'tool', retries: mayRepeat },
    async () => {
      if (!mayRepeat && !claimedNow) return unknownOutcome(call);
      return await runInner(inner, call, context);
    },
  );
}

/** Whether the call may run a second time (see `stepExecutor`). */
async function mayRunAgain(inner: ToolExecutor, call: ToolUseBlock): Promise<boolean> {
  if (typeof inner.preview !== 'function') return false;
  const preview = await inner.preview(call);
  if (preview.idempotent === false) return false;
  return preview.idempotent === true || preview.permission === 'read';
}

/** The inner executor's outcome for the one call (its own `tool-start` is the one yielded). */
async function runInner(
  inner: ToolExecutor,
  call: ToolUseBlock,
  context: ToolExecutionContext,
): Promise<ToolOutcome | undefined> {
  for await (const event of inner.execute([call], context) as AsyncIterable<unknown>) {
    const candidate = event as Partial<ToolCallEvent> & Partial<ToolOutcome>;
    if (candidate.type === 'tool-end') return (event as { outcome: ToolOutcome }).outcome;
    // An executor written for the earlier port yields bare outcomes.
    if (candidate.type === undefined && candidate.result !== undefined) return event as ToolOutcome;
  }
  return undefined;
}

/** The answer for a non-idempotent call a crash cut off. */
function unknownOutcome(call: ToolUseBlock): ToolOutcome {
  return {
    call,
    result: {
      type: 'tool_result',
      toolUseId: call.id,
      content: [{ type: 'text', text: UNKNOWN_OUTCOME_TEXT }],
      isError: true,
    },
    status: 'error',
    attempts: 0,
    durationMs: 0,
  };
}
