// The tool layer: a tool failed, timed out or was sent invalid arguments.
import { SPAN_ATTRIBUTES as A } from '@mh/core';
import { evidence } from './evidence.js';
import type { AttributionRule, RuleHit } from './rule.js';
import type { ToolCallView } from './tool-call.js';

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

export const toolGuardWhileFailing: AttributionRule = {
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

export const toolRuntimeError: AttributionRule = {
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

export const toolInvalidArguments: AttributionRule = {
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
