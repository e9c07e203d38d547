// The model layer: a refusal, an unknown tool, a model going round in circles, or a plain wrong
// answer.
import { SPAN_ATTRIBUTES as A, OutputInvalidError } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import { evidence } from './evidence.js';
import { modelLoop, STUCK_REPEATS } from './loop.js';
import type { AttributionRule, RuleHit } from './rule.js';
import { callKey, type ToolCallView } from './tool-call.js';

export const modelRefused: AttributionRule = {
  id: 'model/refused',
  layer: 'model',
  when: 'the model refused to give the typed output the run asked for',
  test(view): RuleHit | undefined {
    const error = view.error;
    if (!OutputInvalidError.isInstance(error) || error.reason !== 'refusal') return undefined;
    return {
      confidence: 'high',
      summary: 'the model refused to answer',
      evidence: [
        evidence(error.text === '' ? '(no text)' : error.text, { attribute: 'output.text' }),
      ],
      subject: 'refusal',
      detail: 'refusal',
    };
  },
};

export const modelUnknownTool: AttributionRule = {
  id: 'model/unknown-tool',
  layer: 'model',
  when: 'the model called a tool that does not exist',
  test(view): RuleHit | undefined {
    const unknown = view.calls.filter((call) => call.status === 'unknown-tool');
    const [first] = unknown;
    if (!first) return undefined;
    return {
      confidence: 'high',
      summary: `called nonexistent tool ${[...new Set(unknown.map((call) => call.name))].join(', ')}`,
      evidence: unknown.map((call) =>
        evidence(`${call.name}: ${call.result}`, { spanId: call.spanId, attribute: A.toolName }),
      ),
      subject: first.name,
      detail: 'unknown tool',
    };
  },
};

export const modelRepeatedCall: AttributionRule = {
  id: 'model/repeated-call',
  layer: 'model',
  when: `the same call was repeated until stuck (the repeat guard, a limit guard while the model repeated calls it had answers to, or ${STUCK_REPEATS}+ identical calls)`,
  test(view): RuleHit | undefined {
    const counts = new Map<string, { call: ToolCallView; count: number }>();
    for (const call of view.calls) {
      const key = callKey(call);
      const entry = counts.get(key);
      if (entry) entry.count++;
      else counts.set(key, { call, count: 1 });
    }
    const loop = modelLoop(view);
    const top = loop ?? [...counts.values()].sort((a, b) => b.count - a.count)[0];
    const guard = view.guard === 'max-repeated-calls';
    if (!guard && !loop && (!top || top.count < STUCK_REPEATS)) return undefined;
    const until = guard
      ? ' until the repeat guard tripped'
      : loop
        ? ` until ${loop.guard} tripped, its result already at hand`
        : '';
    return {
      confidence: guard || loop ? 'high' : 'medium',
      summary: `${top?.call.name ?? 'a tool'} called ${top?.count ?? 0} times with the same arguments${until}`,
      evidence: top
        ? [
            evidence(
              `${top.call.name}(${canonicalJson(top.call.input)}) × ${top.count}${loop ? `; guard ${loop.guard}; ${loop.redundant} of ${loop.calls} calls repeated one that had already succeeded` : ''}`,
              { spanId: top.call.spanId, attribute: A.toolName },
            ),
          ]
        : [],
      subject: top?.call.name,
      detail: 'repeated call',
    };
  },
};

/** The last rule: a healthy run with a wrong answer. It always holds. */
export const WRONG_ANSWER_RULE: AttributionRule = {
  id: 'model/wrong-answer',
  layer: 'model',
  when: 'none of the above: a healthy run with a wrong answer (look at variance across repeats first)',
  test(view): RuleHit {
    const check = view.input.check;
    const reason = check.status === 'failed' ? check.result.reason : 'the run did not complete';
    const last = view.input.results.at(-1);
    return {
      confidence: 'low',
      summary: `wrong answer: ${reason}`,
      evidence: [
        evidence(reason, { attribute: 'check' }),
        ...(last ? [evidence(last.text || '(no answer)', { attribute: 'answer' })] : []),
      ],
      subject: check.status === 'failed' ? check.result.failures[0]?.check : undefined,
      detail: 'wrong answer',
    };
  },
};
