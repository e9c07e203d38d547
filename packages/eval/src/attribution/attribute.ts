import { signatureOf } from './cluster.js';
import { evidence } from './evidence.js';
import { WRONG_ANSWER_RULE } from './model.js';
import { describeRecovery } from './recovery.js';
import { ATTRIBUTION_RULES } from './rules.js';
import type { Attribution, AttributionInput } from './types.js';
import { sessionView } from './view.js';

/**
 * Attributes a failed session to a layer: SPEC.md's ordered rules (infra, eval, harness, context,
 * tool, prompt, model), first hit wins, with a confidence and evidence (span ids, the tool error,
 * the compacted message that held a fact). Triage, not proof.
 * @example
 * const verdict = attribute({ results: [result], spans: tracer.records(), check: { status: 'failed', result: checked } });
 * console.log(verdict.layer, verdict.rule, verdict.evidence[0]?.excerpt);
 */
export function attribute(input: AttributionInput): Attribution {
  const view = sessionView(input);
  for (const rule of ATTRIBUTION_RULES) {
    const hit = rule.test(view);
    if (!hit) continue;
    // Tool errors a retry recovered from are never the cause, but they are part of what happened.
    const recovered = view.recovered.map((item) =>
      evidence(describeRecovery(item), {
        spanId: item.failures[0]?.spanId,
        attribute: 'tool.recovered',
      }),
    );
    return {
      layer: rule.layer,
      rule: rule.id,
      confidence: hit.confidence,
      summary: hit.summary,
      evidence: [...hit.evidence, ...recovered],
      signature: signatureOf(rule.id, hit.subject, hit.detail),
    };
  }
  // Unreachable: the last rule always holds.
  throw new Error('no attribution rule held');
}

/**
 * Every rule that holds for `input`, in order, without the always-true fallback: which faults
 * the session shows. `attribute` picks the first.
 */
export function matchingRules(input: AttributionInput): string[] {
  const view = sessionView(input);
  return ATTRIBUTION_RULES.filter((rule) => rule !== WRONG_ANSWER_RULE && rule.test(view)).map(
    (rule) => rule.id,
  );
}
