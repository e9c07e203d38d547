import { allowedIn } from './history.js';
import {
  type ContentBlock,
  type Message,
  newMessageId,
  type ToolResultBlock,
  toolResult,
} from './message.js';
import { assertMessages } from './shape.js';

// Repairing a history: every call paired with exactly one result, every block where a vendor
// accepts it. `history.ts` says what is wrong (`validateHistory`); this file makes it right.

/** The kinds of change `repairHistory` makes. */
export type RepairKind =
  | 'synthesized-result'
  | 'dropped-orphan-result'
  | 'dropped-duplicate-result'
  | 'dropped-duplicate-tool-use'
  | 'dropped-misplaced-block'
  | 'dropped-empty-message'
  | 'inserted-result-message'
  | 'renamed-tool-use-id';

/** One change made by `repairHistory`. Repairs are always reported, never silent. */
export interface HistoryRepair {
  /** What was changed. */
  readonly kind: RepairKind;
  /** Id of the message changed (or inserted). */
  readonly messageId: string;
  /** The tool call concerned, when there is one. */
  readonly toolUseId?: string;
  /** A sentence for humans. */
  readonly detail: string;
}

/** The repaired history and what was done to it. */
export interface RepairResult {
  /** A history for which `validateHistory` returns nothing. */
  readonly history: Message[];
  /** Every change, in order; empty when the input was already valid. */
  readonly repairs: HistoryRepair[];
}

/** Options of `repairHistory`. */
export interface RepairOptions {
  /** Why calls lack results; worded into the synthesised results. Default `interrupted`. */
  readonly reason?: 'cancelled' | 'interrupted';
  /** Id factory for inserted messages (tests pass a deterministic one). */
  readonly newId?: () => string;
}

/** The text of a synthesised result for a call that never finished. */
export function interruptedResultText(reason: 'cancelled' | 'interrupted'): string {
  return reason === 'cancelled'
    ? 'Tool call cancelled before it finished; it did not return a result.'
    : 'Tool call interrupted before it finished; its outcome is unknown.';
}

/**
 * Restores the pairing invariant after a cancellation or a crash, changing as little as possible:
 * a call without a result gets a synthesised `isError` result; orphan, duplicate and misplaced tool
 * blocks are dropped, and so is any block in a role that may not hold it (`ROLE_BLOCKS`: a thinking
 * or vendor block in a user message, an image in an assistant message), since no vendor accepts
 * it there; messages left empty are dropped. Text is allowed in both roles, so user text (and a
 * user's images) is never dropped, altered or reordered. Every drop is reported. Returns a new array (the input is not mutated) and every repair made.
 */
export function repairHistory(
  history: readonly Message[],
  options: RepairOptions = {},
): RepairResult {
  assertMessages(history);
  return repairPairs(history, options);
}

/** `repairHistory` without the shape check, for histories whose shape is already known good. */
export function repairPairs(
  history: readonly Message[],
  options: RepairOptions = {},
): RepairResult {
  return repairAfterSettled(history, 0, new Set<string>(), options);
}

/**
 * `repairPairs(history)`, when its first `settled` messages are a history the loop settled (every
 * call answered, every block allowed) whose tool call ids are `settledUseIds`: only the messages
 * after them are looked at, and the result is the same. `settledUseIds` is not changed.
 */
export function repairAfterSettled(
  history: readonly Message[],
  settled: number,
  settledUseIds: ReadonlySet<string>,
  options: RepairOptions = {},
): RepairResult {
  const { tail, repairs } = repairSuffix(history, settled, settledUseIds, options);
  // Every change is reported: with none, the history is its own repair (one copy of it).
  const output = repairs.length === 0 ? history.slice() : history.slice(0, settled).concat(tail);
  return { history: output, repairs };
}

/**
 * The repair of what follows a settled prefix (see `repairAfterSettled`): the messages that
 * replace `history[settled…]`, and the changes. Copies nothing of the prefix, so a run that needs
 * no repair costs the length of its own messages, not of the conversation.
 */
export function repairSuffix(
  history: readonly Message[],
  settled: number,
  settledUseIds: ReadonlySet<string>,
  options: RepairOptions = {},
): { readonly tail: Message[]; readonly repairs: HistoryRepair[] } {
  const reason = options.reason ?? 'interrupted';
  const newId = options.newId ?? (() => newMessageId());
  const repairs: HistoryRepair[] = [];
  const cleaned: Message[] = [];
  const ownUseIds = new Set<string>();
  const seen = (id: string): boolean => ownUseIds.has(id) || settledUseIds.has(id);

  // Pass 1: drop misplaced and duplicate tool calls, and empty messages.
  for (let at = settled; at < history.length; at++) {
    const message = history[at] as Message;
    const content: ContentBlock[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_use' && message.role !== 'assistant') {
        repairs.push({
          kind: 'dropped-misplaced-block',
          messageId: message.id,
          toolUseId: block.id,
          detail: `dropped tool call ${block.id} from a user message`,
        });
      } else if (block.type === 'tool_result' && message.role !== 'user') {
        repairs.push({
          kind: 'dropped-misplaced-block',
          messageId: message.id,
          toolUseId: block.toolUseId,
          detail: `dropped tool result ${block.toolUseId} from an assistant message`,
        });
      } else if (
        block.type !== 'tool_use' &&
        block.type !== 'tool_result' &&
        !allowedIn(message.role, block.type)
      ) {
        repairs.push({
          kind: 'dropped-misplaced-block',
          messageId: message.id,
          detail: `dropped a ${block.type} block from a ${message.role} message (no vendor accepts it there)`,
        });
      } else if (block.type === 'tool_use' && seen(block.id)) {
        repairs.push({
          kind: 'dropped-duplicate-tool-use',
          messageId: message.id,
          toolUseId: block.id,
          detail: `dropped second tool call with id ${block.id}`,
        });
      } else {
        if (block.type === 'tool_use') ownUseIds.add(block.id);
        content.push(block);
      }
    }
    if (content.length === 0) {
      repairs.push({
        kind: 'dropped-empty-message',
        messageId: message.id,
        detail: `dropped empty ${message.role} message ${message.id}`,
      });
      continue;
    }
    cleaned.push(content.length === message.content.length ? message : { ...message, content });
  }

  // Pass 2: pair every call with exactly one result in the next message. A settled prefix ends
  // with no call left to answer, so what follows it is paired on its own.
  const output: Message[] = [];
  for (let index = 0; index < cleaned.length; index++) {
    const message = cleaned[index] as Message;
    const previous = output.length > 0 ? output[output.length - 1] : history[settled - 1];
    let current = message;
    if (message.role === 'user') current = dropUnpairedResults(message, previous, repairs);
    if (current.content.length === 0) {
      repairs.push({
        kind: 'dropped-empty-message',
        messageId: message.id,
        detail: `dropped user message ${message.id}: it held only dropped results`,
      });
      continue;
    }
    output.push(current);
    if (current.role !== 'assistant') continue;
    const calls = current.content.filter((block) => block.type === 'tool_use');
    if (calls.length === 0) continue;
    const next = cleaned[index + 1];
    const answered = new Set<string>();
    if (next?.role === 'user') {
      for (const block of next.content)
        if (block.type === 'tool_result') answered.add(block.toolUseId);
    }
    const missing = calls.filter((call) => !answered.has(call.id));
    if (missing.length === 0) continue;
    const synthesized = missing.map((call) =>
      toolResult(call.id, interruptedResultText(reason), true),
    );
    // The results go into the next message when it is the user's, else into one inserted here.
    let holder: string;
    if (next?.role === 'user') {
      cleaned[index + 1] = insertResults(next, synthesized);
      holder = next.id;
    } else {
      const inserted: Message = { id: newId(), role: 'user', content: synthesized };
      repairs.push({
        kind: 'inserted-result-message',
        messageId: inserted.id,
        detail: `inserted a user message with ${synthesized.length} ${reason} result(s)`,
      });
      output.push(inserted);
      holder = inserted.id;
    }
    for (const call of missing) {
      repairs.push({
        kind: 'synthesized-result',
        messageId: holder,
        toolUseId: call.id,
        detail: `added a ${reason} result for tool call ${call.id}`,
      });
    }
  }
  return { tail: output, repairs };
}

function dropUnpairedResults(
  message: Message,
  previous: Message | undefined,
  repairs: HistoryRepair[],
): Message {
  const calls = new Set<string>();
  if (previous?.role === 'assistant') {
    for (const block of previous.content) if (block.type === 'tool_use') calls.add(block.id);
  }
  const answered = new Set<string>();
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type !== 'tool_result') {
      content.push(block);
    } else if (!calls.has(block.toolUseId)) {
      repairs.push({
        kind: 'dropped-orphan-result',
        messageId: message.id,
        toolUseId: block.toolUseId,
        detail: `dropped result ${block.toolUseId}: no matching call before it`,
      });
    } else if (answered.has(block.toolUseId)) {
      repairs.push({
        kind: 'dropped-duplicate-result',
        messageId: message.id,
        toolUseId: block.toolUseId,
        detail: `dropped second result for ${block.toolUseId}`,
      });
    } else {
      answered.add(block.toolUseId);
      content.push(block);
    }
  }
  return content.length === message.content.length ? message : { ...message, content };
}

/** Inserts results right after the message's last existing result (or first), so nothing else moves. */
function insertResults(message: Message, results: readonly ToolResultBlock[]): Message {
  let position = 0;
  message.content.forEach((block, index) => {
    if (block.type === 'tool_result') position = index + 1;
  });
  const content = [
    ...message.content.slice(0, position),
    ...results,
    ...message.content.slice(position),
  ];
  return { ...message, content };
}
