import { type CompactionStage, type Message, toolResultText, unfenceUntrusted } from '@mh/core';
import type { SessionView } from './view.js';

/** A fact found only in a compacted-away (or trimmed) message. */
export interface CompactedFact {
  /** The fact. */
  readonly fact: string;
  /** The original message that held it. */
  readonly messageId: string;
  /** The compaction that removed or shortened it. */
  readonly compactionId: string;
  /** What that compaction did. */
  readonly stage: CompactionStage;
  /** The compaction's span, when known. */
  readonly spanId?: string;
  /** The original message's text. */
  readonly text: string;
}

/** Everything a message says: text, tool arguments and tool results. */
export function searchableText(message: Message): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_use') parts.push(JSON.stringify(block.input));
    else if (block.type === 'tool_result') parts.push(unfenceUntrusted(toolResultText(block)));
    else if (block.type === 'thinking') parts.push(block.thinking);
  }
  return parts.join('\n');
}

function includesFact(text: string, fact: string): boolean {
  return text.toLowerCase().includes(fact.toLowerCase());
}

/**
 * Facts of the check that the answer lacks, that a compaction removed or trimmed away, and that
 * the live history at the end of the session no longer holds anywhere (so the model could not
 * have seen them when it answered). One entry per such fact, with the message that held it.
 */
export function compactedFacts(view: SessionView): CompactedFact[] {
  const facts = view.input.facts ?? [];
  const last = view.input.results.at(-1);
  if (facts.length === 0 || view.compactions.length === 0 || !last) return [];
  const answer = last.text;
  const live = last.messages.map(searchableText).join('\n');
  const found: CompactedFact[] = [];
  for (const fact of facts) {
    if (includesFact(answer, fact) || includesFact(live, fact)) continue;
    for (const compaction of view.compactions) {
      const original = compaction.originals.find((message) =>
        includesFact(searchableText(message), fact),
      );
      if (!original) continue;
      found.push({
        fact,
        messageId: original.id,
        compactionId: compaction.record.id,
        stage: compaction.record.stage,
        ...(compaction.spanId === undefined ? {} : { spanId: compaction.spanId }),
        text: searchableText(original),
      });
      break;
    }
  }
  return found;
}

/**
 * Whether the check declares facts and the session's end still holds every one of them, in the
 * answer or anywhere in the final context (a summary included): then no compaction lost what the
 * check needs.
 */
export function factsRetained(view: SessionView): boolean {
  const facts = view.input.facts ?? [];
  const last = view.input.results.at(-1);
  if (facts.length === 0 || !last) return false;
  const live = `${last.text}\n${last.messages.map(searchableText).join('\n')}`;
  return facts.every((fact) => includesFact(live, fact));
}
