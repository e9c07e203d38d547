import {
  type AgentEvent,
  type AskedQuestion,
  ConfigError,
  type HeldTurn,
  type IdSource,
  type Interrupt,
  type LoopHooks,
  type Message,
  type PendingTurn,
  type ToolExecutor,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolUsesOf,
  userMessage,
} from '@mh/core';
import { assertMessages, questionInterruptOf, toolCallEvents } from '@mh/core/internal';
import type { Refence } from './agent-fencing.js';
import {
  checkToken,
  deniedText,
  editedResult,
  heldOfPending,
  isAnswer,
  type PlacedDecision,
  type TurnPlace,
  waitingCalls,
} from './agent-interrupts.js';
import { answerFor, decidable, movedOnText, stillAsking } from './agent-questions.js';
import { interruptedOutcomeText, planRecovery } from './recovery-plan.js';

/** The turn a crash (or an interrupt) left pending, finished: ready to append and commit. */
export interface RecoveredTurn {
  /** The journaled assistant message and the user message answering all its calls. */
  readonly turn: Message[];
  readonly assistantId: string;
  /** Calls run now (idempotent, never started, or approved). */
  readonly ran: number;
  /** Calls answered as interrupted (started, not idempotent: never run twice). */
  readonly interrupted: number;
  /** Calls a person decided on (approved or denied). */
  readonly decided: number;
  /** Calls still waiting, answered as not run because a new prompt came (`moveOn`). */
  readonly movedOn: number;
}

/** What finishing a pending turn needs. */
export interface RecoveryDeps {
  readonly executor: ToolExecutor | undefined;
  readonly mayRepeat: (toolName: string) => boolean;
  readonly refence: Refence;
  readonly signal: AbortSignal | undefined;
  /** The session's journal hooks (each call claimed before it runs); absent without a session. */
  readonly hooks: LoopHooks | undefined;
  /**
   * The session's claims beyond the hooks: an answered question's (once, `journalAnswer`) and a
   * denial's result (kept when the turn stays pending). Absent without a session.
   */
  readonly journal?: {
    readonly claimAnswer: (callId: string, answers: readonly unknown[]) => Promise<void>;
    readonly settle: (callId: string, result: ToolResultBlock) => Promise<void>;
  };
  /** A person's decisions on the calls that wait, by call id. */
  readonly decisions: ReadonlyMap<string, PlacedDecision>;
  /** A new prompt came instead of decisions: calls still waiting are answered as not run. */
  readonly moveOn: boolean;
  /** The approval key, when decisions must carry tokens; and where the turn sits. */
  readonly key: Buffer | undefined;
  readonly place: TurnPlace;
  /** Id of the message of results (a durable run's is the same on a replay). */
  readonly newId: IdSource;
}

/** A resume that leaves the turn pending: the calls that wait, and the turn as it now stands. */
export interface StillWaiting {
  readonly waiting: readonly Interrupt[];
  readonly held: HeldTurn;
}

/**
 * Finishes a pending turn (see `planRecovery`): a turn a crash interrupted, or one held back for
 * a person's decisions. Calls that wait for a person (an approval or an answer) and have no
 * decision keep it pending (the result is `waiting`; nothing runs), unless a new prompt came
 * (`moveOn`: they are answered as not run). Otherwise denied calls get the person's message,
 * approved ones run (edited arguments validated again), answered ones run again from the start
 * with their answers (claimed once first), the calls safe to run run, the others are answered as
 * interrupted; the tool events are yielded as they happen. A call that asks again leaves the turn
 * pending, waiting for that answer. A decision for a call that does not wait, or of the wrong
 * kind, is a `ConfigError` naming it.
 */
export async function* recoverTurn(
  pending: PendingTurn,
  deps: RecoveryDeps,
): AsyncGenerator<AgentEvent, RecoveredTurn | StillWaiting, void> {
  const plan = planRecovery(pending, deps.mayRepeat);
  const { fresh, asking } = decidable(plan, deps.decisions);
  const waiting = await waitingCalls(deps.executor, fresh, deps.decisions);
  for (const [callId, action] of asking) {
    if (!deps.decisions.has(callId)) waiting.push(questionInterruptOf(action.call, action.asked));
  }
  const order = toolUsesOf(pending.assistant).map((call) => call.id);
  waiting.sort((a, b) => order.indexOf(a.callId) - order.indexOf(b.callId));
  if (waiting.length > 0 && !deps.moveOn) return { waiting, held: heldOfPending(pending) };
  const results = new Map<string, ToolResultBlock>();
  const edited = new Map<string, unknown>();
  const answers = new Map<string, readonly unknown[]>();
  const toRun: ToolUseBlock[] = [];
  const claimed = new Set<string>();
  const answered = new Set<string>();
  const denied: ToolResultBlock[] = [];
  let movedOn = 0;
  for (const action of plan) {
    if (action.kind !== 'run') {
      results.set(action.result.toolUseId, action.result);
      continue;
    }
    const { call } = action;
    const placed = deps.decisions.get(call.id);
    if (action.restart) {
      claimed.add(call.id);
      if (action.answers) answers.set(call.id, action.answers);
    } else if (waiting.length > 0) {
      results.set(call.id, toolResult(call.id, movedOnText(action), true));
      movedOn++;
      continue;
    } else if (placed) {
      const { decision } = placed;
      const asked = asking.get(call.id)?.asked;
      checkToken(deps.key, deps.place, call, placed, asked);
      if (isAnswer(decision)) {
        answers.set(call.id, answerFor(asked as AskedQuestion, decision.answer, placed.field));
        answered.add(call.id);
        claimed.add(call.id);
      } else if (!decision.approve) {
        const result = toolResult(call.id, deniedText(decision.message), true);
        results.set(call.id, result);
        denied.push(result);
        continue;
      } else if ('input' in decision) {
        edited.set(call.id, decision.input);
        toRun.push({ ...call, input: decision.input });
        continue;
      }
    }
    toRun.push(call);
  }
  // An answered call is claimed before anything runs: of two resumes, one runs it.
  for (const callId of answered) await deps.journal?.claimAnswer(callId, answers.get(callId) ?? []);
  const asked = new Map<string, Interrupt>();
  if (toRun.length > 0 && deps.executor) {
    const hooks = deps.hooks;
    const signal = deps.signal ?? new AbortController().signal;
    // Approved calls run without the policy asking again (see `ToolExecutionContext.approved`);
    // so do answered ones: they passed their policy (or a person's approval) when they first ran.
    const approved = new Set(
      [...deps.decisions].flatMap(([callId, placed]) =>
        isAnswer(placed.decision) || placed.decision.approve ? [callId] : [],
      ),
    );
    for await (const item of deps.executor.execute(toRun, { signal, approved, answers })) {
      for (const event of toolCallEvents(item, deps.executor)) {
        if (event.type === 'tool-start') {
          yield { type: 'tool-execution-start', call: event.call };
          // Starting is a claim (see `SessionStore.journalStart`), made before the executor is
          // pulled again, so before the call runs; a restart or an answer was claimed before.
          if (!claimed.has(event.call.id)) await hooks?.toolStart?.(event.call);
          continue;
        }
        const { outcome } = event;
        if (outcome.status === 'interrupted' && outcome.question) {
          await hooks?.toolQuestion?.(outcome.call, outcome.question);
          asked.set(
            outcome.call.id,
            questionInterruptOf(outcome.call, outcome.question, outcome.permission),
          );
        } else {
          await hooks?.toolEnd?.(outcome.call, outcome.result);
          const input = edited.get(outcome.call.id);
          results.set(
            outcome.call.id,
            edited.has(outcome.call.id) ? editedResult(outcome.result, input) : outcome.result,
          );
        }
        yield { type: 'tool-execution-end', outcome };
      }
    }
  }
  if (asked.size > 0) {
    const done = { results, asked, denied, order };
    return await stillAsking(pending, deps.journal?.settle, done);
  }
  const answeredTurn = toolUsesOf(pending.assistant).map(
    (call) => results.get(call.id) ?? toolResult(call.id, interruptedOutcomeText(call), true),
  );
  // Results journaled by the agent that crashed are fenced with its boundary.
  const turn = deps.refence(
    [pending.assistant, { id: deps.newId(), role: 'user', content: answeredTurn }],
    { journaled: true },
  );
  return {
    turn,
    assistantId: pending.assistant.id,
    ran: toRun.length,
    interrupted: plan.filter((action) => action.kind === 'interrupted').length,
    decided: deps.decisions.size,
    movedOn,
  };
}

/** Prompts made here from a string: their ids are new, so no conversation holds them yet. */
const minted = new WeakSet<Message>();

/**
 * Whether `message` is a prompt `toPromptMessage` made from a string (its id is a new one), once:
 * the object then joins the history, where a caller could take it and send it again.
 */
export const takeMintedPrompt = (message: Message): boolean => minted.delete(message);

/** The prompt of a run as a user message; throws `ConfigError` naming `prompt` when it is not one. */
export function toPromptMessage(prompt: string | Message): Message {
  if (typeof prompt === 'string') {
    if (prompt.trim() === '') throw new ConfigError('prompt', 'expected a non-empty string');
    const message = userMessage(prompt);
    minted.add(message);
    return message;
  }
  if (
    prompt === null ||
    typeof prompt !== 'object' ||
    prompt.role !== 'user' ||
    !Array.isArray(prompt.content)
  ) {
    throw new ConfigError('prompt', 'expected a string or a user Message');
  }
  if (prompt.content.length === 0)
    throw new ConfigError('prompt.content', 'expected at least one block');
  try {
    assertMessages([prompt], 'prompt');
  } catch (error) {
    // Named as the caller wrote it: `prompt.content[0].text`, not `prompt[0].content[0].text`.
    if (!ConfigError.isInstance(error) || !error.field.startsWith('prompt[0]')) throw error;
    const field = `prompt${error.field.slice('prompt[0]'.length)}`;
    throw new ConfigError(field, error.message.slice(error.field.length + 2), { cause: error });
  }
  return prompt;
}
