// The context layer: compaction lost (or may have lost) what the model needed.
import { evidence } from './evidence.js';
import { compactedFacts, factsRetained } from './facts.js';
import { modelLoop } from './loop.js';
import { formatFailure } from './prompt.js';
import type { AttributionRule, RuleHit } from './rule.js';

export const contextCompactedFact: AttributionRule = {
  id: 'context/compacted-fact',
  layer: 'context',
  when: 'a fact the check needs, missing from the answer, exists only in compacted-away history',
  test(view): RuleHit | undefined {
    const found = compactedFacts(view);
    if (found.length === 0) return undefined;
    return {
      confidence: 'high',
      summary: `${found.map((hit) => JSON.stringify(hit.fact)).join(', ')} only in compacted history`,
      evidence: found.map((hit) =>
        evidence(
          hit.text,
          {
            messageId: hit.messageId,
            spanId: hit.spanId,
            attribute: `compaction ${hit.compactionId}`,
          },
          hit.fact,
        ),
      ),
      subject: found[0]?.stage,
      detail: 'fact only in compacted history',
    };
  },
};

export const contextCompaction: AttributionRule = {
  id: 'context/compaction',
  layer: 'context',
  when: 'the history was compacted in the failed session (no fact shown lost, none shown kept)',
  test(view): RuleHit | undefined {
    if (view.compactions.length === 0 || compactedFacts(view).length > 0) return undefined;
    // That a compaction happened is weak evidence: it yields when the final context still holds
    // every fact the check declares, when the check failed only on format, and when the model
    // was going round in circles. The tool, prompt and model rules then say more.
    if (factsRetained(view) || formatFailure(view) || modelLoop(view)) return undefined;
    return {
      confidence: 'low',
      summary: `${view.compactions.length} compaction(s) in the failed session`,
      evidence: view.compactions.map(({ record, spanId }) =>
        evidence(
          `${record.stage}: ${record.foldedMessageIds.length} folded, ${record.trimmedMessageIds.length} trimmed, ${record.tokensBefore}→${record.tokensAfter} tokens; ${record.reason}`,
          { spanId, attribute: `compaction ${record.id}` },
        ),
      ),
      subject: view.compactions[0]?.record.stage,
      detail: 'compaction happened',
    };
  },
};
