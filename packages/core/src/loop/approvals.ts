import type { ToolUseBlock } from '../messages/message.js';
import {
  type ApprovalRequest,
  previewToolCall,
  type ToolExecutor,
} from '../ports/tool-executor.js';
import type { Span } from '../ports/tracer.js';
import type { AgentEvent, Interrupt } from './run-result.js';
import type { RunState } from './run-state.js';
import { runToolBatch, type ToolBatchOutcome } from './tool-batch.js';
import { type Answer, type TurnContext, toolBatchContext } from './turn.js';

/**
 * Calls that wait for a person (`ToolExecutor.approval`). Such a call does not run: the run ends
 * `interrupted`. Of the turn's other calls, reads run now, in parallel as always; writes and execs
 * before the first interrupted call run; later ones wait with it (their order is kept), to run on
 * resume. The turn is held back from the history (its assistant message and the results so far go
 * to `RunResult.pendingTurn`), so the history stays paired; with a session, it stays journaled.
 */
export interface ApprovalPlan {
  /** The calls that run now. */
  readonly toRun: readonly ToolUseBlock[];
  /** The calls that wait for a decision, in the turn's order. */
  readonly interrupts: readonly Interrupt[];
}

/** Which of `calls` wait for a person; undefined when none does (or the executor cannot say). */
export async function planApprovals(
  executor: ToolExecutor | undefined,
  calls: readonly ToolUseBlock[],
): Promise<ApprovalPlan | undefined> {
  if (typeof executor?.approval !== 'function') return undefined;
  const interrupts: Interrupt[] = [];
  const toRun: ToolUseBlock[] = [];
  for (const call of calls) {
    const request = await executor.approval(call);
    if (request !== undefined) {
      interrupts.push(interruptOf(call, request));
      continue;
    }
    // After an interrupted call only reads go on: a write waits to keep the turn's order.
    if (interrupts.length > 0 && (await previewToolCall(executor, call)).permission !== 'read')
      continue;
    toRun.push(call);
  }
  return interrupts.length > 0 ? { toRun, interrupts } : undefined;
}

/** The interrupt of a call that waits for a person, for `request`'s reason. */
export function interruptOf(call: ToolUseBlock, request: ApprovalRequest): Interrupt {
  return {
    callId: call.id,
    tool: call.name,
    input: call.input,
    permission: request.permission,
    reason: request.reason,
  };
}

/**
 * Runs the calls of `plan` that may run and stops the run `interrupted`, holding the turn back:
 * `takeResults` then takes the assistant message out of the history instead of appending results.
 */
export async function* runUntilInterrupt(
  state: RunState,
  context: TurnContext,
  answer: Answer,
  plan: ApprovalPlan,
  span: Span,
): AsyncGenerator<AgentEvent, ToolBatchOutcome, void> {
  const batch = yield* runToolBatch(plan.toRun, toolBatchContext(state, context, span));
  if (!context.run.aborted) {
    state.stop = {
      status: 'interrupted',
      interrupts: plan.interrupts,
      held: { assistant: answer.assistant, results: batch.results },
    };
  }
  return batch;
}
