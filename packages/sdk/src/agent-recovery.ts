import {
  type AgentEvent,
  ConfigError,
  type Interrupt,
  type LoopHooks,
  type Message,
  newMessageId,
  type PendingTurn,
  type ToolExecutor,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolUsesOf,
  userMessage,
} from '@mh/core';
import { assertMessages, toolCallEvents } from '@mh/core/internal';
import type { Refence } from './agent-fencing.js';
import {
  checkToken,
  deniedText,
  editedResult,
  MOVED_ON_TEXT,
  type PlacedDecision,
  type TurnPlace,
  waitingCalls,
} from './agent-interrupts.js';
import { interruptedOutcomeText, planRecovery } from './session-binding.js';

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
  /** A person's decisions on the calls that wait, by call id. */
  readonly decisions: ReadonlyMap<string, PlacedDecision>;
  /** A new prompt came instead of decisions: calls still waiting are answered as not run. */
  readonly moveOn: boolean;
  /** The approval key, when decisions must carry tokens; and where the turn sits. */
  readonly key: Buffer | undefined;
  readonly place: TurnPlace;
}

/**
 * Finishes a pending turn (see `planRecovery`): a turn a crash interrupted, or one held back for
 * a person's decisions. Calls that wait for a person and have no decision keep it pending (the
 * result is `waiting`; nothing runs), unless a new prompt came (`moveOn`: they are answered as not
 * run). Otherwise denied calls get the person's message, approved ones run (edited arguments
 * validated again), the calls safe to run run, the others are answered as interrupted; the tool
 * events are yielded as they happen. A decision for a call that does not wait is a `ConfigError`.
 */
export async function* recoverTurn(
  pending: PendingTurn,
  deps: RecoveryDeps,
): AsyncGenerator<AgentEvent, RecoveredTurn | { readonly waiting: readonly Interrupt[] }, void> {
  const plan = planRecovery(pending, deps.mayRepeat);
  const fresh = plan.flatMap((action) =>
    action.kind === 'run' && !action.restart ? [action.call] : [],
  );
  for (const [callId, placed] of deps.decisions) {
    if (!fresh.some((call) => call.id === callId)) {
      throw new ConfigError(
        `${placed.field}.callId`,
        `no call of the pending turn waits for a decision with id ${callId} (unknown, or already decided)`,
      );
    }
  }
  const waiting = await waitingCalls(deps.executor, fresh, deps.decisions);
  const results = new Map<string, ToolResultBlock>();
  const edited = new Map<string, unknown>();
  const toRun: ToolUseBlock[] = [];
  const restarts = new Set<string>();
  let movedOn = 0;
  if (waiting.length > 0 && !deps.moveOn) return { waiting };
  for (const action of plan) {
    if (action.kind !== 'run') {
      results.set(action.result.toolUseId, action.result);
      continue;
    }
    const { call } = action;
    const placed = deps.decisions.get(call.id);
    if (action.restart) restarts.add(call.id);
    else if (waiting.length > 0) {
      results.set(call.id, toolResult(call.id, MOVED_ON_TEXT, true));
      movedOn++;
      continue;
    } else if (placed) {
      checkToken(deps.key, deps.place, call, placed);
      const { decision } = placed;
      if (!decision.approve) {
        results.set(call.id, toolResult(call.id, deniedText(decision.message), true));
        continue;
      }
      if ('input' in decision) {
        edited.set(call.id, decision.input);
        toRun.push({ ...call, input: decision.input });
        continue;
      }
    }
    toRun.push(call);
  }
  if (toRun.length > 0 && deps.executor) {
    const hooks = deps.hooks;
    const signal = deps.signal ?? new AbortController().signal;
    // Approved calls run without the policy asking again (see `ToolExecutionContext.approved`).
    const approved = new Set(
      [...deps.decisions].flatMap(([callId, placed]) => (placed.decision.approve ? [callId] : [])),
    );
    for await (const item of deps.executor.execute(toRun, { signal, approved })) {
      for (const event of toolCallEvents(item, deps.executor)) {
        if (event.type === 'tool-start') {
          yield { type: 'tool-execution-start', call: event.call };
          // Starting is a claim (see `SessionStore.journalStart`), made before the executor is
          // pulled again, so before the call runs; a restart was claimed before.
          if (!restarts.has(event.call.id)) await hooks?.toolStart?.(event.call);
        } else {
          const { outcome } = event;
          await hooks?.toolEnd?.(outcome.call, outcome.result);
          const input = edited.get(outcome.call.id);
          results.set(
            outcome.call.id,
            edited.has(outcome.call.id) ? editedResult(outcome.result, input) : outcome.result,
          );
          yield { type: 'tool-execution-end', outcome };
        }
      }
    }
  }
  const answered = toolUsesOf(pending.assistant).map(
    (call) => results.get(call.id) ?? toolResult(call.id, interruptedOutcomeText(call), true),
  );
  // Results journaled by the agent that crashed are fenced with its boundary.
  const turn = deps.refence(
    [pending.assistant, { id: newMessageId(), role: 'user', content: answered }],
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

/** The prompt of a run as a user message; throws `ConfigError` naming `prompt` when it is not one. */
export function toPromptMessage(prompt: string | Message): Message {
  if (typeof prompt === 'string') {
    if (prompt.trim() === '') throw new ConfigError('prompt', 'expected a non-empty string');
    return userMessage(prompt);
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
