// The harness layer: our code, not the model's (replay drift, an exception, a denial, a limit).
import {
  SPAN_ATTRIBUTES as A,
  OutputInvalidError,
  ProviderError,
  ReplayDriftError,
  SPAN_NAMES,
} from '@mh/core';
import { describeError, errorMessage, evidence } from './evidence.js';
import { LIMIT_GUARDS, modelLoop } from './loop.js';
import type { AttributionRule, RuleHit } from './rule.js';
import { failedSpans, runSpanOf } from './spans.js';

/** The drift's path, recorded and actual values, for evidence. */
function driftEvidence(error: ReplayDriftError): string {
  const show = (value: unknown): string =>
    value === undefined ? '(absent)' : typeof value === 'string' ? value : JSON.stringify(value);
  return `request ${error.requestIndex}: ${error.path}: recorded ${show(error.recorded)} / now ${show(error.actual)}`;
}

/**
 * A drift's path with what varies between drifts of one cause taken out, for clustering: indices
 * (`messages[4]` vs `messages[6]`) and tool-call ids, which the model draws anew in every repeat
 * (`toolCalls.toolu_01….input.path`). The field itself stays.
 */
function driftSubject(path: string): string {
  return path
    .replace(/^toolCalls(?:\.[A-Za-z_$][\w$]*|\["(?:[^"\\]|\\.)*"\])/, 'toolCalls.<call>')
    .replace(/\[\d+\]/g, '[]');
}

export const harnessReplayDrift: AttributionRule = {
  id: 'harness/replay-drift',
  layer: 'harness',
  when: 'a replayed request differs from the recorded one (ReplayDriftError)',
  test(view): RuleHit | undefined {
    const error = view.error;
    if (!ReplayDriftError.isInstance(error)) return undefined;
    const span = failedSpans(view, SPAN_NAMES.model)[0];
    return {
      confidence: 'high',
      summary: `replay drift at ${error.path} (request ${error.requestIndex})`,
      evidence: [evidence(driftEvidence(error), { spanId: span?.spanId, attribute: 'drift.path' })],
      subject: driftSubject(error.path),
      detail: 'replay drift',
    };
  },
};

export const harnessException: AttributionRule = {
  id: 'harness/exception',
  layer: 'harness',
  when: 'the run failed with an exception that is not a ProviderError (nor a replay drift, nor typed output the model got wrong)',
  test(view): RuleHit | undefined {
    const error = view.error;
    if (
      error === undefined ||
      ProviderError.isInstance(error) ||
      ReplayDriftError.isInstance(error) ||
      OutputInvalidError.isInstance(error)
    )
      return undefined;
    const span = runSpanOf(view);
    const name = error instanceof Error ? error.name : typeof error;
    return {
      confidence: 'high',
      summary: `the run threw ${describeError(error)}`,
      evidence: [evidence(describeError(error), { spanId: span?.spanId, attribute: A.errorType })],
      subject: name,
      detail: errorMessage(error),
    };
  },
};

export const harnessPermissionDenied: AttributionRule = {
  id: 'harness/permission-denied',
  layer: 'harness',
  when: 'the permission policy denied a tool call',
  test(view): RuleHit | undefined {
    const denied = view.calls.filter((call) => call.status === 'denied');
    const [first] = denied;
    if (!first) return undefined;
    return {
      confidence: 'high',
      summary: `permission denied: ${[...new Set(denied.map((call) => call.name))].join(', ')}`,
      evidence: denied.map((call) =>
        evidence(`${call.name}: ${call.result}`, { spanId: call.spanId, attribute: A.toolStatus }),
      ),
      subject: first.name,
      detail: first.result,
    };
  },
};

export const harnessGuard: AttributionRule = {
  id: 'harness/guard',
  layer: 'harness',
  when: 'a limit guard (turns, tokens, cost, timeout) stopped the run, no tool kept failing and the model was not repeating itself',
  test(view): RuleHit | undefined {
    const guard = view.guard;
    if (guard === undefined || !LIMIT_GUARDS.includes(guard) || view.toolErrors.length > 0)
      return undefined;
    // A model that keeps making calls it already has the answers to would hit any limit.
    if (modelLoop(view)) return undefined;
    const span = runSpanOf(view);
    const limit = span?.attributes[A.guardLimit];
    const value = span?.attributes[A.guardValue];
    const byRunner = view.input.timedOut === true;
    return {
      confidence: 'high',
      summary: `guard ${guard} tripped${byRunner ? ' (the runner timeout)' : ''} with no tool errors`,
      evidence: [
        evidence(
          `${guard}${limit !== undefined ? ` limit=${limit}` : ''}${value !== undefined ? ` value=${value}` : ''}; tool errors=0; tool calls=${view.calls.length}`,
          { spanId: span?.spanId, attribute: A.guard },
        ),
      ],
      subject: guard,
      detail: `guard ${guard}`,
    };
  },
};
