import { CancelledError, ProviderError, type StreamEvent } from '@mh/core';
import {
  describeBody,
  type ErrorBody,
  type ErrorContext,
  errorFromBody,
  toHarnessError,
} from './openai-error.js';

/** Maps one vendor stream, chunk by chunk, into core's events. */
export interface StreamMapper<Chunk> {
  /** The events one vendor chunk yields; throws a `ProviderError` for an error the chunk reports. */
  push(chunk: Chunk): readonly StreamEvent[];
  /** True once nothing that follows can change the message: the rest of the body is not read. */
  readonly settled: boolean;
  /** The closing events (`usage`, `message-end`); throws a `ProviderError` when the stream ended early. */
  end(): readonly StreamEvent[];
}

/** A started SDK stream: its chunks and the HTTP response they are read from. */
export interface OpenedStream<Chunk> {
  /** The SDK's `Stream`; its `controller` aborts the request. */
  readonly data: AsyncIterable<Chunk> & { readonly controller?: AbortController };
  /** The raw response, for its status and content type. */
  readonly response: Response;
}

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

/**
 * Runs one streamed SDK call and maps it with `mapper`. Every failure leaves as a harness error:
 * `ProviderError` (HTTP errors, error events, a broken or truncated stream, a body that is not an
 * event stream) or `CancelledError` (the caller's signal). The SDK's iterator ends silently on
 * abort, so an aborted signal is checked after the loop.
 */
export async function* mapSdkStream<Chunk>(
  open: () => Promise<OpenedStream<Chunk>>,
  mapper: StreamMapper<Chunk>,
  context: ErrorContext,
): AsyncGenerator<StreamEvent> {
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
  try {
    for await (const chunk of opened.data) {
      yield* mapper.push(chunk);
      if (mapper.settled) break;
    }
  } catch (error) {
    throw toHarnessError(error, context);
  }
  if (context.signal?.aborted) throw new CancelledError(`${context.provider}: call cancelled`);
  yield* mapper.end();
}
