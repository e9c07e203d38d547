import type { ModelRequest, StreamEvent } from '@mh/core';
import type { KeyContext } from '../cassette/context.js';
import type { RecordedError, RecordedEvent, RequestOutcome } from '../cassette/format.js';
import { scrubDeltas } from './deltas.js';
import { recordError } from './errors.js';

/** Milliseconds rounded to 0.1: enough to replay pacing, short in the file. */
function roundMs(ms: number): number {
  return Math.max(0, Math.round(ms * 10) / 10);
}

/**
 * Streams a model call through unchanged while keeping every event with its time, and writes the
 * exchange as one cassette line when the stream ends, fails or is abandoned (secrets split across
 * deltas are scrubbed first; the whole line is scrubbed when written). The request is
 * serialised when the call starts, so a later change to the caller's objects cannot alter it;
 * with `sharedMessages` n > 0 only the messages after the first n are written (the reader takes
 * the first n from the key's previous request).
 * `start` is called inside the generator: a provider that throws at once is recorded too.
 */
export async function* recordStream(
  start: () => AsyncIterable<StreamEvent>,
  request: ModelRequest,
  index: number,
  context: KeyContext,
  signal: AbortSignal | undefined,
  sharedMessages = 0,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { clock, key } = context;
  const requestJson = JSON.stringify(
    sharedMessages > 0 ? { ...request, messages: request.messages.slice(sharedMessages) } : request,
  );
  const shared = sharedMessages > 0 ? `,"sharedMessages":${sharedMessages}` : '';
  const startedAt = clock.now();
  const events: RecordedEvent[] = [];
  let outcome: RequestOutcome = 'abandoned';
  let sawEnd = false;
  let error: RecordedError | undefined;
  try {
    for await (const event of start()) {
      events.push({ ms: roundMs(clock.now() - startedAt), event });
      if (event.type === 'message-end') sawEnd = true;
      yield event;
    }
    outcome = 'complete';
  } catch (failure) {
    // A stream that fails because its caller aborted was abandoned, not broken: a replay then
    // waits for the same abort instead of throwing.
    if (signal?.aborted !== true) {
      outcome = 'error';
      error = recordError(failure);
    }
    throw failure;
  } finally {
    // The loop stops reading right after `message-end`: that call is complete.
    if (outcome === 'abandoned' && sawEnd) outcome = 'complete';
    const durationMs = roundMs(clock.now() - startedAt);
    const eventsJson = scrubDeltas(events, context.scrubber)
      .map(({ ms, event }) => `{"ms":${ms},"event":${JSON.stringify(event)}}`)
      .join(',');
    context.write(
      `{"type":"request","case":${JSON.stringify(key.case)},"repeat":${key.repeat},"index":${index}${shared},"request":${requestJson},"events":[${eventsJson}],"outcome":"${outcome}"${error ? `,"error":${JSON.stringify(error)}` : ''},"durationMs":${durationMs}}`,
    );
  }
}
