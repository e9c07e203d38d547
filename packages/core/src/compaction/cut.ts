import type { ContentBlock, Message } from '../messages/message.js';
import { trimMessage } from '../messages/trim.js';
import type { ModelRequest, ToolSpec } from '../ports/provider.js';
import type { ContextMeter } from './context-meter.js';
import type { ResolvedCompaction } from './options.js';
import { requestToCarry } from './request.js';

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

/** Where a compaction would cut a history, and what the old segment holds. */
export interface CutPlan {
  readonly old: Message[];
  readonly tail: Message[];
  readonly oldTokens: number;
  /** The user's latest request, when the cut folds it: carried verbatim by what replaces it. */
  readonly request?: ContentBlock[];
  /** What compacting the old segment can save: its tokens less the request it carries. */
  readonly compactableTokens: number;
}

/**
 * The cut of `history` (see `findCut`) and the request to carry across it. A request may take up
 * half of `keepRecentTokens`, and no more than half of what the threshold leaves above the kept
 * tail, so that the summary carrying it, plus the tail, can come in under the threshold.
 */
export function planCut(
  history: readonly Message[],
  settings: ResolvedCompaction,
  meter: Pick<ContextMeter, 'estimateMessages'>,
): CutPlan {
  const estimate = (messages: readonly Message[]): number => meter.estimateMessages(messages);
  const cut = findCut(history, estimate, settings.keepRecentTokens);
  const old = history.slice(0, cut);
  const oldTokens = estimate(old);
  const { keepRecentTokens: keep, thresholdTokens: threshold } = settings;
  const cap = Math.floor(Math.min(keep, threshold - keep) / 2);
  const request = requestToCarry(history, cut, cap, meter);
  const plan = {
    old,
    tail: history.slice(cut),
    oldTokens,
    compactableTokens: oldTokens - (request?.tokens ?? 0),
  };
  return request ? { ...plan, request: request.blocks } : plan;
}
