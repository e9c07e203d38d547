import type { ContentBlock, Message } from './message.js';
import { assertMessages } from './shape.js';

/** The ways a history can break the pairing invariant. */
export const VIOLATION_KINDS = [
  'missing-result',
  'orphan-result',
  'duplicate-result',
  'duplicate-tool-use',
  'misplaced-tool-use',
  'misplaced-result',
  'misplaced-block',
  'empty-message',
] as const;
/** A way a history can break the pairing invariant. */
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

/**
 * The blocks each role may hold, as the vendors accept them: a user turn carries what a person or
 * a tool gives (text, images, tool results); an assistant turn what a model produces (text, its
 * reasoning, tool calls, vendor blocks such as server-side tool calls). Anthropic rejects a
 * thinking block in a user turn and an image in an assistant turn.
 */
export const ROLE_BLOCKS: Readonly<Record<Message['role'], readonly ContentBlock['type'][]>> = {
  user: ['text', 'image', 'tool_result'],
  assistant: ['text', 'thinking', 'tool_use', 'provider'],
};

/** Whether `role` may hold a block of `type`. */
export function allowedIn(role: Message['role'], type: ContentBlock['type']): boolean {
  return ROLE_BLOCKS[role].includes(type);
}

/** One break of the pairing invariant, located precisely. */
export interface HistoryViolation {
  /** What is wrong. */
  readonly kind: ViolationKind;
  /** Index of the message where it was found. */
  readonly messageIndex: number;
  /** Id of that message. */
  readonly messageId: string;
  /** The tool call concerned, when there is one. */
  readonly toolUseId?: string;
  /** A sentence for humans. */
  readonly detail: string;
}

/**
 * Checks the pairing invariant and returns every violation (empty when the history is valid):
 * every `tool_use` of an assistant message has exactly one `tool_result` in the very next message,
 * which is a user message; every `tool_result` answers a call of the message just before it;
 * `tool_use` ids are unique; tool calls appear only in assistant messages and results only in user
 * messages; every other block sits in a role that may hold it (`ROLE_BLOCKS`: no thinking, tool
 * call or vendor block in a user message, no image or result in an assistant message); no message
 * is empty.
 */
export function validateHistory(history: readonly Message[]): HistoryViolation[] {
  assertMessages(history);
  const violations: HistoryViolation[] = [];
  validateFrom(history, 0, new Set<string>(), violations);
  return violations;
}

/**
 * Validates messages `from` … end against their neighbours, adding the ids of real tool calls to
 * `seenUseIds` (which must hold those of the messages before `from`).
 */
export function validateFrom(
  history: readonly Message[],
  from: number,
  seenUseIds: Set<string>,
  violations: HistoryViolation[],
): void {
  for (let index = from; index < history.length; index++) {
    const message = history[index] as Message;
    const at = (kind: ViolationKind, detail: string, toolUseId?: string): void => {
      violations.push({ kind, messageIndex: index, messageId: message.id, toolUseId, detail });
    };
    if (message.content.length === 0) at('empty-message', `message ${message.id} has no content`);
    const previous = index > 0 ? history[index - 1] : undefined;
    const callsBefore = new Set<string>();
    if (previous?.role === 'assistant') {
      for (const block of previous.content)
        if (block.type === 'tool_use') callsBefore.add(block.id);
    }
    const answered = new Set<string>();
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        if (message.role !== 'assistant') {
          at('misplaced-tool-use', `tool call ${block.id} in a user message`, block.id);
        } else if (seenUseIds.has(block.id)) {
          at('duplicate-tool-use', `tool call id ${block.id} used twice`, block.id);
        } else {
          // Only real calls claim an id; a misplaced one is reported as misplaced, not duplicated.
          seenUseIds.add(block.id);
        }
      } else if (block.type === 'tool_result') {
        if (message.role !== 'user') {
          at(
            'misplaced-result',
            `tool result ${block.toolUseId} in an assistant message`,
            block.toolUseId,
          );
        } else if (!callsBefore.has(block.toolUseId)) {
          at(
            'orphan-result',
            `tool result ${block.toolUseId} answers no call of the previous message`,
            block.toolUseId,
          );
        } else if (answered.has(block.toolUseId)) {
          at('duplicate-result', `tool call ${block.toolUseId} answered twice`, block.toolUseId);
        }
        answered.add(block.toolUseId);
      } else if (!allowedIn(message.role, block.type)) {
        at('misplaced-block', `${block.type} block in a ${message.role} message`);
      }
    }
    if (message.role === 'assistant') {
      const next = history[index + 1];
      const resultIds = new Set<string>();
      if (next?.role === 'user') {
        for (const block of next.content)
          if (block.type === 'tool_result') resultIds.add(block.toolUseId);
      }
      const ownIds = new Set<string>();
      for (const block of message.content) {
        if (block.type !== 'tool_use' || ownIds.has(block.id)) continue;
        ownIds.add(block.id);
        if (!resultIds.has(block.id))
          at('missing-result', `tool call ${block.id} has no result`, block.id);
      }
    }
  }
}
