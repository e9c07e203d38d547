import { SPAN_ATTRIBUTES as A } from '@mh/core';
import { evidence } from './evidence.js';
import { compactedFacts, factsRetained } from './facts.js';
import { modelLoop } from './loop.js';
import { MODEL_RULES } from './model.js';
import type { AttributionRule, RuleHit } from './rule.js';
import type { ToolCallView } from './tool-call.js';
import type { SessionView } from './view.js';

function toolErrorEvidence(calls: readonly ToolCallView[]): RuleHit['evidence'] {
  return calls.slice(0, 5).map((call) =>
    evidence(`${call.name} ${call.status}: ${call.result}`, {
      spanId: call.spanId,
      attribute: A.toolStatus,
    }),
  );
}

/** The tool with the most failures among `calls`, and how many. */
function mostFailing(
  calls: readonly ToolCallView[],
): { name: string; count: number; first: ToolCallView } | undefined {
  const counts = new Map<string, ToolCallView[]>();
  for (const call of calls) counts.set(call.name, [...(counts.get(call.name) ?? []), call]);
  let best: { name: string; count: number; first: ToolCallView } | undefined;
  for (const [name, list] of counts) {
    const [first] = list;
    if (first && (!best || list.length > best.count)) best = { name, count: list.length, first };
  }
  return best;
}

const contextCompactedFact: AttributionRule = {
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

const contextCompaction: AttributionRule = {
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

const toolGuardWhileFailing: AttributionRule = {
  id: 'tool/guard-while-failing',
  layer: 'tool',
  when: 'a guard stopped the run while a tool kept failing',
  test(view): RuleHit | undefined {
    if (view.guard === undefined || view.toolErrors.length === 0) return undefined;
    const worst = mostFailing(view.toolErrors);
    if (!worst) return undefined;
    return {
      confidence: worst.count >= 2 ? 'high' : 'medium',
      summary: `guard ${view.guard} tripped while ${worst.name} failed ${worst.count} time(s)`,
      evidence: [
        evidence(`guard ${view.guard}; tool errors=${view.toolErrors.length}`, {
          attribute: A.guard,
        }),
        ...toolErrorEvidence(view.toolErrors),
      ],
      subject: worst.name,
      detail: worst.first.result,
    };
  },
};

const toolRuntimeError: AttributionRule = {
  id: 'tool/runtime-error',
  layer: 'tool',
  when: 'a tool failed or timed out (and no guard stopped the run)',
  test(view): RuleHit | undefined {
    if (view.guard !== undefined) return undefined;
    const failures = view.toolErrors.filter(
      (call) => call.status === 'error' || call.status === 'timeout',
    );
    const worst = mostFailing(failures);
    if (!worst) return undefined;
    return {
      confidence: 'high',
      summary: `${worst.name} ${worst.first.status === 'timeout' ? 'timed out' : 'failed'}${worst.count > 1 ? ` ${worst.count} times` : ''}`,
      evidence: toolErrorEvidence(failures),
      subject: worst.name,
      detail: worst.first.result,
    };
  },
};

const toolInvalidArguments: AttributionRule = {
  id: 'tool/invalid-arguments',
  layer: 'tool',
  when: 'the model sent a tool invalid arguments (no tool failed at run time, no guard)',
  test(view): RuleHit | undefined {
    if (view.guard !== undefined) return undefined;
    if (view.toolErrors.some((call) => call.status !== 'invalid-arguments')) return undefined;
    const worst = mostFailing(view.toolErrors);
    if (!worst) return undefined;
    return {
      confidence: 'medium',
      summary: `invalid arguments for ${worst.name}${worst.count > 1 ? ` (${worst.count} times)` : ''}`,
      evidence: toolErrorEvidence(view.toolErrors),
      subject: worst.name,
      detail: worst.first.result,
    };
  },
};

/** Whether the check failed only on format: every failed check is tagged `format`, or the case is. */
function formatFailure(view: SessionView): boolean {
  const check = view.input.check;
  if (check.status !== 'failed') return false;
  const failures = check.result.failures;
  if ((view.input.tags ?? []).includes('format')) return true;
  return failures.length > 0 && failures.every((failure) => failure.tags.includes('format'));
}

const promptFormat: AttributionRule = {
  id: 'prompt/format',
  layer: 'prompt',
  when: 'the failed checks are all tagged format, or the case is',
  test(view): RuleHit | undefined {
    const check = view.input.check;
    if (check.status !== 'failed' || !formatFailure(view)) return undefined;
    const failures = check.result.failures;
    const caseTagged = (view.input.tags ?? []).includes('format');
    return {
      confidence: 'medium',
      summary: `wrong answer format: ${check.result.reason}`,
      evidence: (failures.length > 0
        ? failures
        : [{ check: 'check', reason: check.result.reason }]
      ).map((failure) =>
        evidence(`${failure.check}: ${failure.reason}`, {
          attribute: caseTagged ? 'case.tags' : 'check.tags',
        }),
      ),
      subject: failures[0]?.check,
      detail: 'format',
    };
  },
};

/** A closing offer after an answer ("Anything else?"): no question about the task itself. */
const CLOSING_OFFER =
  /\b(anything|something) (else|more)\b|\bany(thing)? (other|further|more) (questions?|help)\b|\bother questions?\b/i;
/** An explicit answer line, as the eval suite's tasks ask for: the model did answer. */
const ANSWER_LINE = /^[\s*_]*ANSWER[\s*_]*:/im;
/** A sentence ending in a question mark (not one inside a URL or code). */
const QUESTION = /[^.!?\n]*\?["'`*)\]]*(?=\s|$)/g;

/**
 * Whether an answer asks the user something back: a question among its last 200 characters that
 * is not a closing offer ("Is there anything else I can help with?") and no `ANSWER:` line. A
 * wrong answer followed by a pleasantry is the model's, not the prompt's.
 */
export function asksBack(text: string): boolean {
  if (ANSWER_LINE.test(text)) return false;
  const tail = text.trim().slice(-200);
  return [...tail.matchAll(QUESTION)].some(([question]) => !CLOSING_OFFER.test(question));
}

const promptAskedUser: AttributionRule = {
  id: 'prompt/asked-user',
  layer: 'prompt',
  when: 'the model asked the user back instead of calling any tool',
  test(view): RuleHit | undefined {
    if (view.input.check.status !== 'failed') return undefined;
    const lastIndex = view.input.results.length - 1;
    const last = view.input.results[lastIndex];
    if (last?.status !== 'completed' || !asksBack(last.text)) return undefined;
    if (view.calls.some((call) => call.run === lastIndex)) return undefined;
    return {
      confidence: 'medium',
      summary: 'the model asked the user back without calling a tool',
      evidence: [evidence(last.text, { attribute: 'answer' })],
      detail: 'asked the user back',
    };
  },
};

/** The context, tool, prompt and model rules, in SPEC.md's order (the fallback excluded). */
export const LATE_RULES: readonly AttributionRule[] = [
  contextCompactedFact,
  contextCompaction,
  toolGuardWhileFailing,
  toolRuntimeError,
  toolInvalidArguments,
  promptFormat,
  promptAskedUser,
  ...MODEL_RULES,
];
