import type { Message } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';

/** A request to summarise part of a conversation. */
export interface SummaryRequest {
  /** The messages to fold into a summary (a whole number of turns, pairs intact). */
  readonly messages: readonly Message[];
  /** Instructions for the summary (keep exact identifiers, …). */
  readonly instructions: string;
  /** Cancels the summary call. */
  readonly signal?: AbortSignal;
}

/** A summary and what producing it cost. */
export interface Summary {
  /** The summary text. */
  readonly text: string;
  /** Tokens the summary call used. */
  readonly usage: Usage;
  /** The model that wrote it. */
  readonly model?: string;
}

/** Summarises old turns during compaction: the port a provider-backed summariser implements. */
export interface Summarizer {
  /** Produces a summary; throws `ProviderError` when the call fails. */
  summarize(request: SummaryRequest): Promise<Summary>;
}
