// The infra layer: the model provider failed (auth, quota, rate limit, outage, network).
import { SPAN_ATTRIBUTES as A, ProviderError, SPAN_NAMES } from '@mh/core';
import { evidence } from './evidence.js';
import type { AttributionRule, RuleHit } from './rule.js';
import { failedSpans } from './spans.js';
import type { Evidence } from './types.js';

export const infraProviderError: AttributionRule = {
  id: 'infra/provider-error',
  layer: 'infra',
  when: 'the run failed with a ProviderError (auth, quota, rate limit, outage, network)',
  test(view): RuleHit | undefined {
    const error = view.error;
    if (!ProviderError.isInstance(error)) return undefined;
    const spans = failedSpans(view, SPAN_NAMES.model);
    const fields = `kind=${error.kind} status=${error.status ?? '-'} retryable=${error.retryable}`;
    const items: Evidence[] = spans.map((span) =>
      evidence(
        `${span.attributes[A.errorType] ?? error.kind}; attempts=${span.attributes[A.retryAttempts] ?? 1}; ${fields}; ${error.message}`,
        { spanId: span.spanId, attribute: A.errorType },
      ),
    );
    if (items.length === 0)
      items.push(evidence(`${fields}; ${error.message}`, { attribute: 'error' }));
    // A refused request may be the harness's own doing (too large, malformed): less sure.
    const ours = error.kind === 'bad-request' || error.kind === 'context-overflow';
    return {
      confidence: ours ? 'medium' : 'high',
      summary:
        `provider ${error.provider ?? ''} failed: ${error.kind}${error.status ? ` (${error.status})` : ''}`.replace(
          '  ',
          ' ',
        ),
      evidence: items,
      subject: error.kind,
      detail: error.message,
    };
  },
};
