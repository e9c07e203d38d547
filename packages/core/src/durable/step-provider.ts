import type { RunResult } from '../loop/run-result.js';
import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '../ports/provider.js';
import type { StepRunner } from '../ports/step-runner.js';
import { type ErrorRecord, recordError, reviveError } from './error-record.js';

/** What a model-call step records: the call's events (deltas merged) and how it failed, if it did. */
export interface ModelCallRecord {
  readonly events: readonly StreamEvent[];
  readonly error?: ErrorRecord;
}

/**
 * `provider` with each call run as one durable step named `model`: the step streams the call to
 * its end and records its events, and the events are yielded when the step returns, so a replay
 * yields the recorded events without calling the provider (no finished call is paid for twice).
 * Consecutive text, thinking and argument deltas are merged in the record, to keep it small: a
 * consumer sees a durable call's content in one piece per block, at the end of the call. A failure
 * is recorded and thrown again, as the same typed error, on a replay. The engine must not retry
 * the step: a provider wrapped in `withRetry` retries inside it.
 */
export function stepProvider(provider: Provider, steps: StepRunner): Provider {
  const durable: Provider = {
    name: provider.name,
    ...(provider.nativeOutput === undefined ? {} : { nativeOutput: provider.nativeOutput }),
    async *stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
      const record = await steps.step<ModelCallRecord>(
        { name: 'model', kind: 'model', retries: false },
        () => recordCall(provider, request, options),
      );
      yield* record.events;
      if (record.error !== undefined) throw reviveError(record.error);
    },
  };
  if (typeof provider.settle === 'function') {
    const settle = provider.settle.bind(provider);
    return { ...durable, settle: (result: RunResult) => settle(result) };
  }
  return durable;
}

/** Streams one call to its end, merging deltas. */
async function recordCall(
  provider: Provider,
  request: ModelRequest,
  options: StreamOptions | undefined,
): Promise<ModelCallRecord> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of provider.stream(request, options)) appendMerged(events, event);
  } catch (error) {
    // An abort is no outcome to keep: the step fails, and the run that cancelled it ends.
    if (options?.signal?.aborted) throw error;
    return { events, error: recordError(error) };
  }
  return { events };
}

/** Appends `event`, merged into the last event when both are deltas of the same block. */
function appendMerged(events: StreamEvent[], event: StreamEvent): void {
  const last = events[events.length - 1];
  if (last !== undefined) {
    if (
      (event.type === 'text-delta' && last.type === 'text-delta') ||
      (event.type === 'thinking-delta' && last.type === 'thinking-delta')
    ) {
      events[events.length - 1] = { ...last, text: last.text + event.text };
      return;
    }
    if (
      event.type === 'tool-call-delta' &&
      last.type === 'tool-call-delta' &&
      last.id === event.id
    ) {
      events[events.length - 1] = { ...last, json: last.json + event.json };
      return;
    }
  }
  events.push(event);
}
