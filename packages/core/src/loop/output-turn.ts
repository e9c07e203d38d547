import { OutputInvalidError } from '../errors.js';
import {
  type IdSource,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  userMessage,
} from '../messages/message.js';
import {
  correctionText,
  type OutputVerdict,
  readTextAnswer,
  readToolAnswer,
  toolCorrectionText,
} from '../output/answer.js';
import type { ResolvedOutput } from '../output/typed-output.js';
import type { Span } from '../ports/tracer.js';
import { holdTurn, planApprovals, runUntilInterrupt } from './approvals.js';
import type { AgentEvent } from './run-result.js';
import type { RunState } from './run-state.js';
import { runToolBatch, type ToolBatchOutcome } from './tool-batch.js';
import { type Answer, type TurnContext, toolBatchContext } from './turn.js';

/**
 * Typed output's part of a turn. Under the `tool` strategy the final tool's calls never reach the
 * executor: the loop judges their arguments and answers them itself, so the history stays paired.
 * A text answer is judged after the turn's message is kept. A wrong answer is sent back with its
 * problems (an error result for the final tool, a user message for text) until `maxRetries`
 * wrong answers; one more ends the run with `OutputInvalidError`.
 */

/** The turn's tool calls: the final tool's judged by the loop, the others run by the executor. */
export async function* runTurnTools(
  state: RunState,
  context: TurnContext,
  answer: Answer,
  span: Span,
): AsyncGenerator<AgentEvent, ToolBatchOutcome, void> {
  const output = context.output;
  const finals = output?.tool ? answer.calls.filter((call) => call.name === output.name) : [];
  if (finals.length === 0) {
    const plan = await planApprovals(context.settings.tools, answer.calls);
    if (plan) return yield* runUntilInterrupt(state, context, answer, plan, span);
  }
  if (output === undefined || finals.length === 0) {
    const batch = yield* runToolBatch(answer.calls, toolBatchContext(state, context, span));
    holdTurn(state, context, answer, batch);
    return batch;
  }
  const given = new Map<string, ToolResultBlock>();
  const verdict = readToolAnswer(output, finals[0] as ToolUseBlock);
  const accepted = verdict.ok ? verdict : undefined;
  if (accepted) state.output = accepted.value;
  else if (verdict.ok === false) wrongAnswer(state, output, verdict);
  const ends = accepted !== undefined || state.stop !== undefined;
  for (const call of answer.calls) {
    if (call.name === output.name) {
      const first = call === finals[0];
      given.set(call.id, finalToolResult(output, call, first ? verdict : undefined));
    } else if (ends) {
      const why = accepted ? 'the final answer ended the run' : 'no valid final answer was given';
      given.set(call.id, toolResult(call.id, `Not run: ${why}.`, true));
    }
  }
  const toRun = answer.calls.filter((call) => !given.has(call.id));
  const batch = yield* runToolBatch(toRun, toolBatchContext(state, context, span));
  const ran = new Map(batch.results.map((result) => [result.toolUseId, result]));
  const results = answer.calls
    .map((call) => given.get(call.id) ?? ran.get(call.id))
    .filter((result) => result !== undefined);
  holdTurn(state, context, answer, { ...batch, results });
  return { ...batch, results };
}

/**
 * Judges an answer given as text (no tool call): accepted, sent back with a correction (the turn
 * then does not end the run), or failed.
 */
export function judgeTextAnswer(
  state: RunState,
  output: ResolvedOutput,
  answer: Answer,
  newId: IdSource,
): void {
  const verdict = readTextAnswer(output, state.lastText, answer.end.stopReason);
  if (verdict.ok) {
    state.output = verdict.value;
    return;
  }
  wrongAnswer(state, output, verdict);
  if (state.stop === undefined)
    state.append(userMessage(correctionText(output, verdict.issues), newId()));
}

/** Counts a wrong answer; the one past `maxRetries` (or a refusal, or a cut-off) stops the run. */
function wrongAnswer(
  state: RunState,
  output: ResolvedOutput,
  verdict: Extract<OutputVerdict, { ok: false }>,
): void {
  state.wrongOutputs++;
  if (verdict.reason === 'invalid' && state.wrongOutputs <= output.maxRetries) return;
  state.stop = {
    status: 'error',
    error: new OutputInvalidError({
      reason: verdict.reason,
      issues: verdict.issues,
      text: verdict.text,
      attempts: state.wrongOutputs,
    }),
  };
}

function finalToolResult(
  output: ResolvedOutput,
  call: ToolUseBlock,
  verdict: OutputVerdict | undefined,
): ToolResultBlock {
  if (verdict === undefined)
    return toolResult(call.id, `Not run: ${output.name} was already called in this turn.`, true);
  if (verdict.ok) return toolResult(call.id, 'Final answer accepted.');
  return toolResult(call.id, toolCorrectionText(output, verdict.issues), true);
}
