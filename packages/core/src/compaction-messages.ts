import { extractIdentifiers, identifiersNotIn } from './identifiers.js';
import { type Message, newMessageId } from './messages.js';
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

/**
 * The summary message replacing `source`: the summariser's `text` under the summary header, then
 * the identifiers of `source` the text does not name (as many as fit the budget). `omitted`
 * counts those that did not fit.
 */
export function summaryMessage(
  text: string,
  source: readonly Message[],
  contextWindow: number,
): { message: Message; omitted: number } {
  const missing = identifiersNotIn(text, extractIdentifiers(renderTranscript(source)));
  const fit = withinBudget(missing, contextWindow);
  const carried =
    fit.length > 0 ? `\n\nExact identifiers from the summarised messages: ${fit.join(', ')}` : '';
  const message: Message = {
    id: newMessageId(),
    role: 'user',
    content: [{ type: 'text', text: `${SUMMARY_HEADER}\n${text}${carried}` }],
    meta: { compaction: 'summary', cacheBreakpoint: true },
  };
  return { message, omitted: missing.length - fit.length };
}

/**
 * The note that stands for `old` when no summary of it could be made: how many messages were
 * dropped and the identifiers they mentioned (as many as fit). `lost` counts those that did not fit.
 */
export function dropNote(
  old: readonly Message[],
  contextWindow: number,
): { message: Message; lost: number } {
  const all = extractIdentifiers(renderTranscript(old));
  const ids = withinBudget(all, contextWindow);
  const named = ids.length > 0 ? ` Exact identifiers they mentioned: ${ids.join(', ')}` : '';
  const message: Message = {
    id: newMessageId(),
    role: 'user',
    content: [
      {
        type: 'text',
        text: `[Compaction dropped ${old.length} earlier messages: no summary of them could be made.${named}]`,
      },
    ],
    meta: { compaction: 'drop', cacheBreakpoint: true },
  };
  return { message, lost: all.length - ids.length };
}
