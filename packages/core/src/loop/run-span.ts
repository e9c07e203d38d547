import type { Guard } from '../errors.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A, GEN_AI_OPERATIONS } from '../tracing/vocabulary.js';
import { usageAttributes } from './model-call.js';
import type { RunStatus } from './run-result.js';
import type { RunState } from './run-state.js';

/** Opens the run's `mh.run` span, under the caller's span when one is given. */
export function startRunSpan(
  tracer: Tracer,
  settings: { readonly model: string; readonly provider: { readonly name: string } },
  parent: Span | undefined,
  runId: string,
): Span {
  return tracer.startSpan(SPAN_NAMES.run, {
    parent,
    attributes: {
      [A.operationName]: GEN_AI_OPERATIONS.run,
      [A.runId]: runId,
      [A.requestModel]: settings.model,
      [A.providerName]: settings.provider.name,
    },
  });
}

/** How the run ended, as its span records it. */
interface RunEnding {
  readonly status: RunStatus;
  readonly guard?: Guard;
  readonly error?: Error;
}

/**
 * Records the run's totals and how it ended on its span, and ends it: the one place the run
 * span's closing attributes are set. A guard's limit and value are recorded when the run still
 * ends on that guard (a provider's `settle` may have turned it into an error).
 */
export function endRunSpan(span: Span, state: RunState, ending: RunEnding): void {
  const guardStop = state.stop?.status === 'guard' && ending.guard ? state.stop : undefined;
  span.setAttributes({
    ...usageAttributes(state.usage),
    [A.runStatus]: ending.status,
    [A.guard]: ending.guard,
    [A.guardLimit]: guardStop?.error.limit,
    [A.guardValue]: guardStop?.error.value,
    [A.turns]: state.turns,
    [A.costUsd]: state.costUsd,
  });
  if (ending.status === 'error' && ending.error) recordFailure(span, ending.error);
  span.end();
}
