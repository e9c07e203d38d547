import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import type { CompactionEvent, CompactionRecord } from './record.js';

/**
 * A compaction as a session stores it: the record, the message it inserted (a summary or a drop
 * note) and the shortened versions of the messages it trimmed. Applied to the full stored
 * history, the patches of a branch rebuild the compacted history the agent was working with.
 */
export interface CompactionPatch {
  readonly record: CompactionRecord;
  /** The summary or drop note that replaced the folded messages. */
  readonly insert?: Message;
  /** The trimmed messages, as they became (same ids). */
  readonly replace: readonly Message[];
}

/** The patches of one compaction step, from its events and the history it produced. */
export function compactionPatches(
  events: readonly CompactionEvent[],
  history: readonly Message[],
): CompactionPatch[] {
  const byId = new Map(history.map((message) => [message.id, message]));
  return events.map(({ record }) => {
    const insert = record.summaryMessageId ? byId.get(record.summaryMessageId) : undefined;
    const replace = record.trimmedMessageIds
      .map((id) => byId.get(id))
      .filter((message): message is Message => message !== undefined);
    return insert ? { record, insert, replace } : { record, replace };
  });
}

/**
 * Applies one patch to a history: trimmed messages replaced by id, folded ones removed and the
 * inserted message put where the first of them was. Returns undefined (leave the history as it
 * is) when the patch names a message the history does not hold or the result would not be valid.
 */
export function applyCompactionPatch(
  history: readonly Message[],
  patch: CompactionPatch,
): Message[] | undefined {
  const { record } = patch;
  if (record.stage === 'skipped') return [...history];
  const ids = new Set(history.map((message) => message.id));
  if (record.foldedMessageIds.some((id) => !ids.has(id))) return undefined;
  if (patch.replace.some((message) => !ids.has(message.id))) return undefined;
  const replacements = new Map(patch.replace.map((message) => [message.id, message]));
  const folded = new Set(record.foldedMessageIds);
  const out: Message[] = [];
  let inserted = patch.insert === undefined;
  for (const message of history) {
    if (folded.has(message.id)) {
      if (!inserted && patch.insert) out.push(patch.insert);
      inserted = true;
      continue;
    }
    out.push(replacements.get(message.id) ?? message);
  }
  if (!inserted && patch.insert) out.unshift(patch.insert);
  return validateHistory(out).length === 0 ? out : undefined;
}
