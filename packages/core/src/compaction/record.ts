import type { Message } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';

/**
 * What a compaction did:
 * - `trim`: tool results were shortened to a head and a tail (identifiers kept): old ones, or the
 *   newest too when the request would otherwise not fit the window;
 * - `summary`: an old segment was replaced by a summary message;
 * - `drop`: the oldest turns were dropped (the summary failed and trimming was not enough);
 * - `skipped`: nothing changed (a summary not smaller than its source, an old segment too small
 *   to be worth it, the newest message alone over the threshold, a summary call the run's
 *   cancellation or timeout cut short). A skipped compaction may still
 *   have cost a summary call; its `usage` and `costUsd` say so.
 */
export type CompactionStage = 'trim' | 'summary' | 'drop' | 'skipped';

/** The record of one compaction, kept with the session's checkpoint and on the run result. */
export interface CompactionRecord {
  /** Unique id of this compaction. */
  readonly id: string;
  /** The run it happened in. */
  readonly runId: string;
  /** The turn (1-based, within the run) before whose model call it ran. */
  readonly turn: number;
  /** What it did. */
  readonly stage: CompactionStage;
  /** Why: the threshold crossed, and for degraded or skipped compactions what went wrong. */
  readonly reason: string;
  /** Ids of messages removed from the live history (summarised or dropped). */
  readonly foldedMessageIds: readonly string[];
  /** Ids of messages kept but with tool output shortened. */
  readonly trimmedMessageIds: readonly string[];
  /** Id of the summary message that replaced the folded ones (stage `summary`). */
  readonly summaryMessageId?: string;
  /** Context size (tokens) before and after. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The compaction threshold, tokens. */
  readonly thresholdTokens: number;
  /** Tokens the summary call used (zero usage when there was none). */
  readonly usage: Usage;
  /** Cost of the summary call, USD. */
  readonly costUsd: number;
  /** Wall time of the compaction, milliseconds. */
  readonly durationMs: number;
}

/**
 * The `compaction` event of a run: the record, plus the original messages it removed or
 * shortened (so an eval can tell that a fact existed only in compacted-away history).
 */
export interface CompactionEvent {
  readonly type: 'compaction';
  readonly record: CompactionRecord;
  /** The messages as they were before this compaction, for every folded or trimmed id. */
  readonly originals: readonly Message[];
}
