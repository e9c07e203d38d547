import { type Message, newMessageId } from '@mh/core';

/** What a cancelled run's mark says, to the model on the next run and to a reader of the session. */
export const CANCEL_MARK_TEXT = '(The user cancelled this request before it was answered.)';

/**
 * The assistant message that ends a run the user cancelled while it awaited an answer. It keeps
 * roles alternating and records the cancel in the conversation itself, so resuming the session
 * does not answer the cancelled request again (`meta.cancelled` marks it for programs).
 */
export function cancelMark(): Message {
  return {
    id: newMessageId(),
    role: 'assistant',
    content: [{ type: 'text', text: CANCEL_MARK_TEXT }],
    meta: { cancelled: true },
  };
}

/** Whether `message` is the mark of a cancelled run. */
export function isCancelMark(message: Message | undefined): boolean {
  return message?.role === 'assistant' && message.meta?.cancelled === true;
}
