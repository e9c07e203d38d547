import type { ToolUseBlock } from '../messages/message.js';
import type { AskedQuestion, Permission } from '../ports/tool.js';
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
    kind: 'approval',
    callId: call.id,
    tool: call.name,
    input: call.input,
    permission: request.permission,
    reason: request.reason,
  };
}

/** The interrupt of a call whose tool asked `asked` (`ToolRunContext.interrupt`). */
export function questionInterruptOf(
  call: ToolUseBlock,
  asked: AskedQuestion,
  permission?: Permission,
): Interrupt {
  return {
    kind: 'question',
    callId: call.id,
    tool: call.name,
    input: call.input,
    ...(permission ? { permission } : {}),
    reason: asked.question,
    question: asked.question,
    ...(asked.schema ? { schema: asked.schema } : {}),
    answers: asked.answers,
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
  holdTurn(state, context, answer, batch, plan.interrupts);
  return batch;
}

/**
 * Stops the run `interrupted` when calls wait for a person: `approvals` (planned before the calls
 * ran) and the calls of `batch` that stopped on a question. The interrupts keep the turn's order;
 * the turn is held back with the results it has. Nothing waits (or the run was aborted): no-op.
 */
export function holdTurn(
  state: RunState,
  context: TurnContext,
  answer: Answer,
  batch: ToolBatchOutcome,
  approvals: readonly Interrupt[] = [],
): void {
  const asked = batch.questions ?? [];
  if (context.run.aborted || state.stop !== undefined) return;
  if (approvals.length === 0 && asked.length === 0) return;
  const byCall = new Map<string, Interrupt>(
    approvals.map((interrupt) => [interrupt.callId, interrupt]),
  );
  for (const { call, asked: question, permission } of asked)
    byCall.set(call.id, questionInterruptOf(call, question, permission));
  const interrupts = answer.calls.flatMap((call) => byCall.get(call.id) ?? []);
  const questions = asked.map(({ call, asked: question }) => ({ callId: call.id, ...question }));
  state.stop = {
    status: 'interrupted',
    interrupts,
    held: {
      assistant: answer.assistant,
      results: batch.results,
      ...(questions.length > 0 ? { questions } : {}),
    },
  };
}
