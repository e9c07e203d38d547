import {
  type AskedQuestion,
  ConfigError,
  type Decision,
  type HeldTurn,
  type Interrupt,
  type Message,
  type PendingTurn,
  type RunResult,
  type ToolExecutor,
  type ToolResultBlock,
  type ToolUseBlock,
  toolUsesOf,
} from '@mh/core';
import { assertOptions, interruptOf, jsonValueProblem } from '@mh/core/internal';
import { runWithoutTurns } from './agent-options.js';
import { type ApprovalSubject, signApproval, verifyApproval } from './approval-token.js';

export type { Decision } from '@mh/core';

/** A checked decision and where it was given (`decisions[i]`), for the errors that name it. */
export interface PlacedDecision {
  readonly decision: Decision;
  readonly field: string;
}

const DECISION_KEYS = ['callId', 'approve', 'answer', 'input', 'message', 'token'];

/** Checks `decisions` (a `ConfigError` names the field) and indexes them by call id. */
export function checkDecisions(decisions: unknown): ReadonlyMap<string, PlacedDecision> {
  const placed = new Map<string, PlacedDecision>();
  if (decisions === undefined) return placed;
  if (!Array.isArray(decisions))
    throw new ConfigError('options.decisions', 'expected an array of decisions');
  decisions.forEach((decision: unknown, index) => {
    const field = `options.decisions[${index}]`;
    if (decision === null || typeof decision !== 'object' || Array.isArray(decision))
      throw new ConfigError(field, 'expected { callId, approve, … }');
    assertOptions(decision, DECISION_KEYS, field);
    const { callId, approve, message, token } = decision as Record<string, unknown>;
    if (typeof callId !== 'string' || callId === '')
      throw new ConfigError(`${field}.callId`, 'expected the id of a waiting call');
    if ('answer' in decision) checkAnswerDecision(decision as Record<string, unknown>, field);
    else if (typeof approve !== 'boolean')
      throw new ConfigError(`${field}.approve`, 'expected a boolean (or an answer)');
    if (approve && 'message' in decision)
      throw new ConfigError(`${field}.message`, 'only a denial carries a message');
    if (!approve && 'input' in decision)
      throw new ConfigError(`${field}.input`, 'only an approval carries edited arguments');
    if (message !== undefined && typeof message !== 'string')
      throw new ConfigError(`${field}.message`, 'expected a string');
    if (token !== undefined && typeof token !== 'string')
      throw new ConfigError(`${field}.token`, 'expected a string');
    if (placed.has(callId))
      throw new ConfigError(`${field}.callId`, `call ${callId} is decided twice`);
    placed.set(callId, { decision: decision as Decision, field });
  });
  return placed;
}

/** Checks the shape of an answer decision: a JSON `answer`, nothing of an approval's. */
function checkAnswerDecision(decision: Record<string, unknown>, field: string): void {
  for (const key of ['approve', 'input', 'message']) {
    if (key in decision)
      throw new ConfigError(
        `${field}.${key}`,
        'an answer to a question carries no approve, input or message',
      );
  }
  const problem = jsonValueProblem(decision.answer, `${field}.answer`);
  if (problem !== undefined) {
    const at = problem.indexOf(': ');
    throw new ConfigError(problem.slice(0, at), problem.slice(at + 2));
  }
}

/** Whether `decision` answers a question (else it approves or denies a call). */
export function isAnswer(
  decision: Decision,
): decision is Extract<Decision, { readonly answer: unknown }> {
  return 'answer' in decision;
}

/** Where a pending turn sits: what an approval token binds a decision to. */
export interface TurnPlace {
  readonly sessionId: string;
  readonly branch: string;
  readonly head: string | null;
}

/**
 * The token of `interrupt` (or of its call with edited `input`) at `place`; for a question, it
 * also covers the question and the answers the call already had.
 */
export function tokenFor(
  key: Buffer,
  place: TurnPlace,
  call: { readonly callId: string; readonly tool: string },
  input: unknown,
  question?: AskedQuestion,
): string {
  return signApproval(key, subjectOf(place, call, input, question));
}

/** Refuses a decision whose token is not this call's, at this place, for these arguments. */
export function checkToken(
  key: Buffer | undefined,
  place: TurnPlace,
  call: ToolUseBlock,
  placed: PlacedDecision,
  question?: AskedQuestion,
): void {
  if (key === undefined) return;
  const { decision } = placed;
  const input =
    !isAnswer(decision) && decision.approve && 'input' in decision ? decision.input : call.input;
  const subject = subjectOf(place, { callId: call.id, tool: call.name }, input, question);
  if (!verifyApproval(key, subject, decision.token)) {
    throw new ConfigError(
      `${placed.field}.token`,
      `does not sign this decision of call ${call.id} (forged, made for another call or other arguments, or stale: the session moved)`,
    );
  }
}

function subjectOf(
  place: TurnPlace,
  call: { readonly callId: string; readonly tool: string },
  input: unknown,
  question?: AskedQuestion,
): ApprovalSubject {
  return {
    ...place,
    callId: call.callId,
    tool: call.tool,
    input,
    ...(question ? { question } : {}),
  };
}

/** Which never-started calls of a pending turn wait for a person, without a decision. */
export async function waitingCalls(
  executor: ToolExecutor | undefined,
  calls: readonly ToolUseBlock[],
  decided: ReadonlyMap<string, PlacedDecision>,
): Promise<Interrupt[]> {
  const waiting: Interrupt[] = [];
  if (typeof executor?.approval !== 'function') return waiting;
  for (const call of calls) {
    if (decided.has(call.id)) continue;
    const request = await executor.approval(call);
    if (request === undefined) continue;
    waiting.push(interruptOf(call, request));
  }
  return waiting;
}

/**
 * A held turn (no session) as the journal would hold it: its finished calls with their results,
 * its calls held on questions with them.
 */
export function pendingOfHeld(held: HeldTurn): PendingTurn {
  const results = new Map(held.results.map((result) => [result.toolUseId, result]));
  const questions = new Map((held.questions ?? []).map(({ callId, ...asked }) => [callId, asked]));
  return {
    baseHead: null,
    assistant: held.assistant,
    calls: toolUsesOf(held.assistant).map((call) => {
      const result = results.get(call.id);
      const question = questions.get(call.id);
      if (result) return { call, started: true, result };
      return question ? { call, started: true, question } : { call, started: false };
    }),
  };
}

/** The held turn of a pending one: its assistant message, the results and questions it has. */
export function heldOfPending(pending: PendingTurn): HeldTurn {
  const questions = pending.calls.flatMap((entry) =>
    entry.question && !entry.result ? [{ callId: entry.call.id, ...entry.question }] : [],
  );
  return {
    assistant: pending.assistant,
    results: pending.calls.flatMap((entry) => (entry.result ? [entry.result] : [])),
    ...(questions.length > 0 ? { questions } : {}),
  };
}

/** The result of a resume that stays interrupted (some waiting call has no decision). */
export function stillInterrupted(
  history: readonly Message[],
  interrupts: readonly Interrupt[],
  held: HeldTurn,
): RunResult {
  return runWithoutTurns(history, { status: 'interrupted', interrupts, pendingTurn: held });
}

/** The text the model reads for a call a person denied. */
export function deniedText(message: string | undefined): string {
  return message === undefined || message.trim() === ''
    ? 'Not run: the user denied this call.'
    : `Not run: the user denied this call: ${message}`;
}

/** The text for a call left waiting when the user sent a new message instead of deciding. */
export const MOVED_ON_TEXT =
  'Not run: the user sent a new message instead of deciding on this call.';

/** `result` with a first line saying the arguments were edited by the user. */
export function editedResult(result: ToolResultBlock, input: unknown): ToolResultBlock {
  return {
    ...result,
    content: [
      { type: 'text', text: `(Run with arguments edited by the user: ${JSON.stringify(input)})` },
      ...result.content,
    ],
  };
}
