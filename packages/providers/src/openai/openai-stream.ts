import { ProviderError, type StreamEvent } from '@mh/core';
import { mapStream, type OpenedStream, type StreamMapper } from '../stream-mapper.js';
import {
  describeBody,
  type ErrorBody,
  type ErrorContext,
  errorFromBody,
  toHarnessError,
} from './openai-error.js';

/** The error for a response that is not an event stream: the API's own when the body holds one. */
async function notAStream<Chunk>(
  opened: OpenedStream<Chunk>,
  contentType: string,
  context: ErrorContext,
): Promise<Error> {
  const body = await opened.response
    .text()
    .catch((error: unknown) => `(unreadable: ${String(error)})`);
  opened.data.controller?.abort();
  const status = opened.response.status;
  try {
    const json = JSON.parse(body) as { error?: unknown } | null;
    if (typeof json?.error === 'object' && json.error !== null) {
      return errorFromBody(json.error as ErrorBody, context, `in a ${status} response`);
    }
  } catch {
    // Not JSON: described below.
  }
  return new ProviderError(
    `${context.provider}: expected an event stream from ${context.endpoint}, received HTTP ${status} ${contentType} with ${describeBody(body, contentType)}`,
    { kind: 'server', status, retryable: false, provider: context.provider },
  );
}

/** Starts the call and checks its response is an event stream; failures as harness errors. */
async function openEventStream<Chunk>(
  open: () => Promise<OpenedStream<Chunk>>,
  context: ErrorContext,
): Promise<AsyncIterable<Chunk>> {
  let opened: OpenedStream<Chunk>;
  try {
    opened = await open();
  } catch (error) {
    throw toHarnessError(error, context);
  }
  const contentType = opened.response.headers.get('content-type') ?? '';
  // No content type at all is let through: some compatible servers omit it on their streams.
  if (contentType !== '' && !/event-stream/i.test(contentType)) {
    throw await notAStream(opened, contentType, context);
  }
  return opened.data;
}

/**
 * Runs one streamed OpenAI SDK call and maps it with `mapper` (`ChatStreamMapper` or
 * `ResponsesStreamMapper`), reading no further once it settled. Every failure leaves as a harness
 * error: `ProviderError` (HTTP errors, error events, a broken or truncated stream, a body that is
 * not an event stream) or `CancelledError` (the caller's signal).
 */
export function readOpenAIStream<Chunk>(
  open: () => Promise<OpenedStream<Chunk>>,
  mapper: StreamMapper<Chunk>,
  context: ErrorContext,
): AsyncGenerator<StreamEvent> {
  return mapStream(() => openEventStream(open, context), mapper, {
    afterSettled: 'stop',
    toError: (error) => toHarnessError(error, context),
  });
}
