import {
  type AgentEvent,
  ConfigError,
  type Message,
  newMessageId,
  type ToolExecutor,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolUsesOf,
  userMessage,
} from '@mh/core';
import { assertMessages, toolCallEvents } from '@mh/core/internal';
import type { Refence } from './agent-fencing.js';
import { interruptedOutcomeText, planRecovery, type SessionBinding } from './session-binding.js';

/** The turn a crash interrupted, finished: ready to append to the history and commit. */
export interface RecoveredTurn {
  /** The journaled assistant message and the user message answering all its calls. */
  readonly turn: Message[];
  readonly assistantId: string;
  /** Calls run now (idempotent or never started). */
  readonly ran: number;
  /** Calls answered as interrupted (started, not idempotent: never run twice). */
  readonly interrupted: number;
}

/**
 * Finishes the turn a crash interrupted (see `planRecovery`): runs the calls that are safe to run,
 * answers the others as interrupted, and yields the tool events as they happen. Returns the turn,
 * or undefined when no turn was pending.
 */
export async function* recoverTurn(
  session: SessionBinding,
  deps: {
    readonly executor: ToolExecutor | undefined;
    readonly mayRepeat: (toolName: string) => boolean;
    readonly refence: Refence;
    readonly signal: AbortSignal | undefined;
  },
): AsyncGenerator<AgentEvent, RecoveredTurn | undefined, void> {
  const pending = await session.pendingTurn();
  if (!pending) return undefined;
  const plan = planRecovery(pending, deps.mayRepeat);
  const results = new Map<string, ToolResultBlock>();
  const toRun: ToolUseBlock[] = [];
  const restarts = new Set<string>();
  for (const action of plan) {
    if (action.kind === 'run') {
      toRun.push(action.call);
      if (action.restart) restarts.add(action.call.id);
    } else results.set(action.result.toolUseId, action.result);
  }
  if (toRun.length > 0 && deps.executor) {
    const hooks = session.hooks();
    const signal = deps.signal ?? new AbortController().signal;
    for await (const item of deps.executor.execute(toRun, { signal })) {
      for (const event of toolCallEvents(item, deps.executor)) {
        if (event.type === 'tool-start') {
          yield { type: 'tool-execution-start', call: event.call };
          // Starting is a claim (see `SessionStore.journalStart`), made before the executor is
          // pulled again, so before the call runs; a restart was claimed before.
          if (!restarts.has(event.call.id)) await hooks.toolStart?.(event.call);
        } else {
          const { outcome } = event;
          await hooks.toolEnd?.(outcome.call, outcome.result);
          results.set(outcome.call.id, outcome.result);
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
