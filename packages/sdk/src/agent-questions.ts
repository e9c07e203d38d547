import {
  type AskedQuestion,
  ConfigError,
  type HeldTurn,
  type Interrupt,
  type PendingTurn,
  type ToolResultBlock,
  type ToolUseBlock,
} from '@mh/core';
import { isAnswer, MOVED_ON_TEXT, type PlacedDecision } from './agent-interrupts.js';
import { answerSchemaProblem } from './answer-schema.js';
import type { RecoveryAction } from './recovery-plan.js';

// The questions part of finishing a pending turn (see `recoverTurn`): which calls a decision can
// name, the answers an answered call runs again with, and a turn left pending by a new question.

/**
 * The turn stays pending because a call asked (again): its denials are journaled so they stand,
 * and the calls that wait are its questions, in the turn's order.
 */
export async function stillAsking(
  pending: PendingTurn,
  settle: ((callId: string, result: ToolResultBlock) => Promise<void>) | undefined,
  done: {
    readonly results: ReadonlyMap<string, ToolResultBlock>;
    readonly asked: ReadonlyMap<string, Interrupt>;
    readonly denied: readonly ToolResultBlock[];
    readonly order: readonly string[];
  },
): Promise<{ readonly waiting: readonly Interrupt[]; readonly held: HeldTurn }> {
  for (const result of done.denied) await settle?.(result.toolUseId, result);
  const waiting = done.order.flatMap((callId) => done.asked.get(callId) ?? []);
  const questions = waiting.flatMap((interrupt) =>
    interrupt.kind === 'question'
      ? [
          {
            callId: interrupt.callId,
            question: interrupt.question,
            ...(interrupt.schema ? { schema: interrupt.schema } : {}),
            answers: interrupt.answers,
          },
        ]
      : [],
  );
  const results = done.order.flatMap((callId) => done.results.get(callId) ?? []);
  return { waiting, held: { assistant: pending.assistant, results, questions } };
}

/**
 * The calls of the plan a decision can name: never-started ones (`fresh`: an approval) and those
 * held on a question (`asking`: an answer). A decision naming another call, or of the wrong kind,
 * is a `ConfigError` naming its field.
 */
export function decidable(
  plan: readonly RecoveryAction[],
  decisions: ReadonlyMap<string, PlacedDecision>,
): {
  fresh: ToolUseBlock[];
  asking: Map<string, { readonly call: ToolUseBlock; readonly asked: AskedQuestion }>;
} {
  const fresh: ToolUseBlock[] = [];
  const asking = new Map<string, { readonly call: ToolUseBlock; readonly asked: AskedQuestion }>();
  for (const action of plan) {
    if (action.kind !== 'run' || action.restart) continue;
    if (action.question) asking.set(action.call.id, { call: action.call, asked: action.question });
    else fresh.push(action.call);
  }
  for (const [callId, placed] of decisions) {
    const answer = isAnswer(placed.decision);
    const held = asking.get(callId);
    if (held) {
      if (!isAnswer(placed.decision))
        throw new ConfigError(
          `${placed.field}.approve`,
          `call ${callId} waits for an answer to its question, not an approval: give { callId, answer }`,
        );
      // Checked before anything else is decided, so a wrong answer is refused even while other
      // calls still wait.
      answerFor(held.asked, placed.decision.answer, placed.field);
    } else if (fresh.some((call) => call.id === callId)) {
      if (answer)
        throw new ConfigError(
          `${placed.field}.answer`,
          `call ${callId} asked no question: it waits for an approval ({ callId, approve })`,
        );
    } else {
      throw new ConfigError(
        `${placed.field}.callId`,
        `no call of the pending turn waits for a decision with id ${callId} (unknown, or already decided)`,
      );
    }
  }
  return { fresh, asking };
}

/** The answers a call runs again with: its earlier ones and `answer`, checked against the schema. */
export function answerFor(
  asked: AskedQuestion,
  answer: unknown,
  field: string,
): readonly unknown[] {
  const problem = asked.schema && answerSchemaProblem(answer, asked.schema, `${field}.answer`);
  if (problem) {
    const at = problem.indexOf(': ');
    throw new ConfigError(problem.slice(0, at), `${problem.slice(at + 2)} (the question's schema)`);
  }
  return [...asked.answers, answer];
}

/** What the model reads for a call left waiting when the user sent a new message instead. */
export function movedOnText(action: Extract<RecoveryAction, { kind: 'run' }>): string {
  if (!action.question) return MOVED_ON_TEXT;
  return `Stopped: ${action.call.name} asked the user ${JSON.stringify(action.question.question)} and the user sent a new message instead of answering.`;
}
