import type { Message } from './messages.js';
import type { ModelRequest, ToolSpec } from './provider.js';
import { trimMessage } from './trim.js';

/** The request a history would make (what the meter measures). */
export function requestOf(
  messages: readonly Message[],
  context: {
    readonly model: string;
    readonly system?: string;
    readonly tools: readonly ToolSpec[];
  },
): ModelRequest {
  return { model: context.model, system: context.system, tools: context.tools, messages };
}

/** A message the kept tail may start with: not a user message answering the calls before it. */
function canStartTail(message: Message): boolean {
  return (
    message.role === 'assistant' || !message.content.some((block) => block.type === 'tool_result')
  );
}

/**
 * Where the recent tail starts: the earliest turn boundary whose suffix fits `keepTokens`, but
 * never the very start (something must be old) and never after the newest message. Returns 0
 * when there is no boundary to cut at.
 */
export function findCut(
  history: readonly Message[],
  estimate: (messages: readonly Message[]) => number,
  keepTokens: number,
): number {
  let best = 0;
  let tailTokens = 0;
  for (let index = history.length - 1; index >= 1; index--) {
    tailTokens += estimate([history[index] as Message]);
    if (tailTokens > keepTokens && best !== 0) break;
    if (canStartTail(history[index] as Message)) {
      best = index;
      if (tailTokens > keepTokens) break;
    }
  }
  return best;
}

/** Trims every tool result of `messages` to `keepTokens`; `changed` names the messages trimmed. */
export function trimAll(
  messages: readonly Message[],
  keepTokens: number,
): { messages: Message[]; changed: string[] } {
  const changed: string[] = [];
  const out = messages.map((message) => {
    const trimmed = trimMessage(message, keepTokens);
    if (!trimmed) return message;
    changed.push(message.id);
    return trimmed;
  });
  return { messages: out, changed };
}
