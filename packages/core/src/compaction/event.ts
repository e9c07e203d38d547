import type { IdSource, Message } from '../messages/message.js';
import { type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { Clock } from '../ports/clock.js';
import type { CompactionEvent, CompactionRecord, CompactionStage } from './record.js';

/** What every record of one compaction step shares. */
export interface EventBase {
  readonly context: { readonly runId: string; readonly turn: number };
  /** When the step started (clock time). */
  readonly started: number;
  /** Context size before this record's change, tokens. */
  readonly before: number;
  readonly thresholdTokens: number;
  readonly clock: Clock;
  /** Ids of the records (`cmp_…`). */
  readonly newId: IdSource;
}

/** What one record changed and cost. */
export interface EventParts {
  readonly after: number;
  readonly folded?: readonly Message[];
  readonly trimmed?: readonly string[];
  /** The messages before the change; only those folded or trimmed are kept on the event. */
  readonly originals?: readonly Message[];
  readonly summaryId?: string;
  readonly usage?: Usage;
  readonly costUsd?: number;
}

/** A compaction event: its record, and the originals of the messages it folded or trimmed. */
export function compactionEvent(
  base: EventBase,
  stage: CompactionStage,
  reason: string,
  parts: EventParts,
): CompactionEvent {
  const folded = parts.folded?.map((message) => message.id) ?? [];
  const trimmed = parts.trimmed ?? [];
  const touched = new Set([...folded, ...trimmed]);
  const record: CompactionRecord = {
    id: base.newId('cmp'),
    runId: base.context.runId,
    turn: base.context.turn,
    stage,
    reason,
    foldedMessageIds: folded,
    trimmedMessageIds: trimmed,
    summaryMessageId: parts.summaryId,
    tokensBefore: base.before,
    tokensAfter: parts.after,
    thresholdTokens: base.thresholdTokens,
    usage: parts.usage ?? ZERO_USAGE,
    costUsd: parts.costUsd ?? 0,
    durationMs: Math.max(0, base.clock.now() - base.started),
  };
  const originals = (parts.originals ?? []).filter((message) => touched.has(message.id));
  return { type: 'compaction', record, originals };
}
