import { SPAN_ATTRIBUTES as A, SPAN_NAMES, type SpanRecord } from '@mh/core';
import type { SessionView } from './view.js';

/** The session's spans named `name` that ended in error. */
export function failedSpans(view: SessionView, name: string): SpanRecord[] {
  return view.spans.filter((span) => span.name === name && span.status === 'error');
}

/** The `mh.run` span of the failed run, or the first run span when the run is unknown. */
export function runSpanOf(view: SessionView): SpanRecord | undefined {
  const runId = view.failedRun?.runId;
  return view.spans.find(
    (span) =>
      span.name === SPAN_NAMES.run && (runId === undefined || span.attributes[A.runId] === runId),
  );
}
