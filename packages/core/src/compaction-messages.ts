import { extractIdentifiers, identifiersNotIn } from './identifiers.js';
import { type ContentBlock, type Message, newMessageId } from './messages.js';
import { renderTranscript, SUMMARY_HEADER } from './summary-prompt.js';
import { estimateTokens } from './tokens.js';

/** Identifiers carried verbatim into a summary or drop note take at most this share of the window. */
const CARRIED_IDENTIFIERS_SHARE = 0.2;

/** The first identifiers that fit the carrying budget of a `contextWindow`-token window. */
export function withinBudget(ids: readonly string[], contextWindow: number): string[] {
  const budget = Math.floor(contextWindow * CARRIED_IDENTIFIERS_SHARE);
  const out: string[] = [];
  let used = 0;
  for (const id of ids) {
    used += estimateTokens(id) + 1;
    if (used > budget) break;
    out.push(id);
  }
  return out;
}

/** Heads the user's request when a summary or drop note carries it verbatim. */
export const CARRIED_REQUEST_HEADER =
  "[The user's latest request, verbatim (compaction folded the message that held it):]";

/**
 * The user's latest request, when compaction is about to fold it: the content of the newest
 * user message that is not a tool result (or the request an earlier summary carried), if it
 * stands before `cut` and its blocks estimate at most `maxTokens`. A request in the kept tail,
 * or a bigger one (a pasted document is summarised like the rest), is not carried.
 */
export function requestToCarry(
  history: readonly Message[],
  cut: number,
  maxTokens: number,
  meter: { estimateMessages(messages: readonly Message[]): number },
): ContentBlock[] | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index] as Message;
    if (message.role !== 'user') continue;
    if (message.content.some((block) => block.type === 'tool_result')) continue;
    if (index >= cut) return undefined;
    const blocks = requestBlocksOf(message);
    if (blocks.length === 0) return undefined;
    const size = meter.estimateMessages([{ id: message.id, role: 'user', content: blocks }]);
    return size <= maxTokens ? blocks : undefined;
  }
  return undefined;
}

/** The request a user message holds: all of a prompt; what a summary or drop note carried. */
function requestBlocksOf(message: Message): ContentBlock[] {
  if (message.meta?.compaction === undefined) return [...message.content];
  const carried = message.meta.requestBlocks;
  return typeof carried === 'number' && carried > 0 && carried < message.content.length
    ? message.content.slice(message.content.length - carried)
    : [];
}

/** A compaction message's content and meta, with the request (if any) after its own text. */
function withRequest(
  text: string,
  stage: 'summary' | 'drop',
  request: readonly ContentBlock[] | undefined,
): Pick<Message, 'content' | 'meta'> {
  const own: ContentBlock = { type: 'text', text };
  if (!request || request.length === 0)
    return { content: [own], meta: { compaction: stage, cacheBreakpoint: true } };
  return {
    content: [own, { type: 'text', text: CARRIED_REQUEST_HEADER }, ...request],
    meta: { compaction: stage, cacheBreakpoint: true, requestBlocks: request.length },
  };
}

/**
 * The summary message replacing `source`: the summariser's `text` under the summary header, then
 * the identifiers of `source` neither the text nor the carried `request` names (as many as fit the
 * budget), then the user's latest request verbatim when compaction folds it. `omitted` counts the
 * identifiers that did not fit.
 */
export function summaryMessage(
  text: string,
  source: readonly Message[],
  contextWindow: number,
  request?: readonly ContentBlock[],
): { message: Message; omitted: number } {
  const named = request
    ? `${text}\n${renderTranscript([{ id: 'request', role: 'user', content: request }])}`
    : text;
  const missing = identifiersNotIn(named, extractIdentifiers(renderTranscript(source)));
  const fit = withinBudget(missing, contextWindow);
  const carried =
    fit.length > 0 ? `\n\nExact identifiers from the summarised messages: ${fit.join(', ')}` : '';
  const message: Message = {
    id: newMessageId(),
    role: 'user',
    ...withRequest(`${SUMMARY_HEADER}\n${text}${carried}`, 'summary', request),
  };
  return { message, omitted: missing.length - fit.length };
}

/**
 * The note that stands for `old` when no summary of it could be made: how many messages were
 * dropped and the identifiers they mentioned (as many as fit), then the user's latest request
 * verbatim when compaction folds it. `lost` counts the identifiers that did not fit.
 */
export function dropNote(
  old: readonly Message[],
  contextWindow: number,
  request?: readonly ContentBlock[],
): { message: Message; lost: number } {
  const all = extractIdentifiers(renderTranscript(old));
  const ids = withinBudget(all, contextWindow);
  const named = ids.length > 0 ? ` Exact identifiers they mentioned: ${ids.join(', ')}` : '';
  const message: Message = {
    id: newMessageId(),
    role: 'user',
    ...withRequest(
      `[Compaction dropped ${old.length} earlier messages: no summary of them could be made.${named}]`,
      'drop',
      request,
    ),
  };
  return { message, lost: all.length - ids.length };
}
