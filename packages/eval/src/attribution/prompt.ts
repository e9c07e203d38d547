// The prompt layer: the model did the task but not as asked (format, typed output), or asked the
// user back.
import { OutputInvalidError } from '@mh/core';
import { evidence } from './evidence.js';
import type { AttributionRule, RuleHit } from './rule.js';
import type { SessionView } from './view.js';

/** Whether the check failed only on format: every failed check is tagged `format`, or the case is. */
export function formatFailure(view: SessionView): boolean {
  const check = view.input.check;
  if (check.status !== 'failed') return false;
  const failures = check.result.failures;
  if ((view.input.tags ?? []).includes('format')) return true;
  return failures.length > 0 && failures.every((failure) => failure.tags.includes('format'));
}

export const promptFormat: AttributionRule = {
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

export const promptAskedUser: AttributionRule = {
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

export const promptOutputInvalid: AttributionRule = {
  id: 'prompt/output-invalid',
  layer: 'prompt',
  when: 'the typed output the run asked for never matched its schema, or was cut off at the token limit (OutputInvalidError)',
  test(view): RuleHit | undefined {
    const error = view.error;
    if (!OutputInvalidError.isInstance(error) || error.reason === 'refusal') return undefined;
    const cut = error.reason === 'max-tokens';
    return {
      confidence: cut ? 'high' : 'medium',
      summary: cut
        ? 'typed output cut off at the output token limit'
        : `typed output still invalid after ${error.attempts} answer(s): ${error.issues[0] ?? 'no match'}`,
      evidence: [
        evidence(error.issues.join('; '), { attribute: 'output.issues' }),
        evidence(error.text === '' ? '(empty answer)' : error.text, { attribute: 'output.text' }),
      ],
      subject: 'output',
      detail: cut ? 'output cut off' : 'output invalid',
    };
  },
};
