import { type IdSource, type Message, newMessageId, type RunResult } from '@mh/core';

/** What a cancelled run's mark says, to the model on the next run and to a reader of the session. */
export const CANCEL_MARK_TEXT = '(This request was cancelled before it was answered.)';

/**
 * The assistant message that ends a run the user cancelled while it awaited an answer. It keeps
 * roles alternating and records the cancel in the conversation itself, so resuming the session
 * does not answer the cancelled request again (`meta.cancelled` marks it for programs).
 */
export function cancelMark(newId: IdSource = newMessageId): Message {
  return {
    id: newId(),
    role: 'assistant',
    content: [{ type: 'text', text: CANCEL_MARK_TEXT }],
    meta: { cancelled: true },
  };
}

/** Whether `message` is the mark of a cancelled run. */
export function isCancelMark(message: Message | undefined): boolean {
  return message?.role === 'assistant' && message.meta?.cancelled === true;
}

/**
 * Ends a cancelled run's history with a cancel mark when it would otherwise end awaiting an answer
 * (the prompt, or the results of cancelled calls), and adds the mark to the run's result. The
 * cancel is then part of the conversation: `resume()` finds nothing to answer and does not pay for
 * a model call the user cancelled, and the next run's model sees the request was abandoned. A
 * crash leaves no mark, so `resume()` still finishes what a crash interrupted.
 */
export function withCancelMark<R extends RunResult | undefined = undefined>(
  history: readonly Message[],
  result?: R,
  newId: IdSource = newMessageId,
): { history: Message[]; result: R } {
  if (history.at(-1)?.role !== 'user') return { history: [...history], result: result as R };
  const mark = cancelMark(newId);
  const marked = result && {
    ...result,
    messages: [...result.messages, mark],
    newMessages: [...result.newMessages, mark],
  };
  return { history: [...history, mark], result: marked as R };
}
