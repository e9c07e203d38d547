import { extractIdentifiers, identifiersNotIn } from '../messages/identifiers.js';
import type { ContentBlock, IdSource, Message } from '../messages/message.js';
import { estimateTokens } from '../messages/tokens.js';
import { withRequest } from './request.js';
import { renderTranscript, SUMMARY_HEADER } from './summary-prompt.js';

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

/**
 * The identifiers of `source` that a compaction message would not name verbatim: neither its
 * `text` nor the carried `request` holds them.
 */
function identifiersMissing(
  text: string,
  source: readonly Message[],
  request: readonly ContentBlock[] | undefined,
): string[] {
  const named = request
    ? `${text}\n${renderTranscript([{ id: 'request', role: 'user', content: request }])}`
    : text;
  return identifiersNotIn(named, extractIdentifiers(renderTranscript(source)));
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
  request: readonly ContentBlock[] | undefined,
  newId: IdSource,
): { message: Message; omitted: number } {
  const missing = identifiersMissing(text, source, request);
  const fit = withinBudget(missing, contextWindow);
  const carried =
    fit.length > 0 ? `\n\nExact identifiers from the summarised messages: ${fit.join(', ')}` : '';
  const message: Message = {
    id: newId(),
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
  request: readonly ContentBlock[] | undefined,
  newId: IdSource,
): { message: Message; lost: number } {
  const all = identifiersMissing('', old, request);
  const ids = withinBudget(all, contextWindow);
  const named = ids.length > 0 ? ` Exact identifiers they mentioned: ${ids.join(', ')}` : '';
  const message: Message = {
    id: newId(),
    role: 'user',
    ...withRequest(
      `[Compaction dropped ${old.length} earlier messages: no summary of them could be made${request ? "; the user's latest request among them is kept below" : ''}.${named}]`,
      'drop',
      request,
    ),
  };
  return { message, lost: all.length - ids.length };
}
