import {
  type AskedQuestion,
  type PendingTurn,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolUsesOf,
} from '@mh/core';

/** What recovery decided for one call of an interrupted turn. */
export type RecoveryAction =
  | { readonly kind: 'keep'; readonly result: ToolResultBlock }
  | {
      readonly kind: 'run';
      readonly call: ToolUseBlock;
      /** The call had started before the crash: it is idempotent and runs again, unclaimed. */
      readonly restart: boolean;
      /** The question the call stopped on: it runs again, from the start, once answered. */
      readonly question?: AskedQuestion;
      /** The answers a restarted call had (it asked before the crash): it gets them again. */
      readonly answers?: readonly unknown[];
    }
  | { readonly kind: 'interrupted'; readonly result: ToolResultBlock };

/** The result text the model reads for a non-idempotent call a crash interrupted. */
export function interruptedOutcomeText(call: ToolUseBlock): string {
  return (
    `The call ${call.name} was interrupted (the process stopped while it ran) and its outcome is ` +
    'unknown. It was not run again because it is not idempotent: check its effect before retrying.'
  );
}

/**
 * Decides, call by call, how to finish a turn a crash interrupted: a finished call keeps its
 * journaled result; a call held on a question runs again once answered; a call that never started
 * runs now; a started, unfinished call runs again only if it may (its tool is idempotent or only
 * reads), else the model is told its outcome is unknown. No non-idempotent tool with a side effect
 * ever runs twice because of a crash.
 */
export function planRecovery(
  pending: PendingTurn,
  mayRepeat: (toolName: string) => boolean,
): RecoveryAction[] {
  const entries = new Map(pending.calls.map((entry) => [entry.call.id, entry]));
  return toolUsesOf(pending.assistant).map((call): RecoveryAction => {
    const entry = entries.get(call.id);
    if (entry?.result) return { kind: 'keep', result: entry.result };
    if (entry?.question) return { kind: 'run', call, restart: false, question: entry.question };
    if (!entry?.started || mayRepeat(call.name)) {
      const answers = entry?.answers ? { answers: entry.answers } : {};
      return { kind: 'run', call, restart: entry?.started === true, ...answers };
    }
    return { kind: 'interrupted', result: toolResult(call.id, interruptedOutcomeText(call), true) };
  });
}
