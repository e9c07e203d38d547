import type { StreamEvent } from '@mh/core';

/**
 * Maps one vendor stream, chunk by chunk, into core's events. Each wire API has one (Anthropic
 * Messages, OpenAI Chat Completions, OpenAI Responses); `mapStream` drives it the same way for all.
 */
export interface StreamMapper<Chunk> {
  /** The events one vendor chunk yields; throws a `ProviderError` for an error the chunk reports. */
  push(chunk: Chunk): readonly StreamEvent[];
  /** True once nothing that follows can change the message. */
  readonly settled: boolean;
  /**
   * The closing events, once the stream is over (often `usage` and `message-end`). Throws a
   * `CancelledError` when the caller's signal ended it (the SDKs end their iterators silently on
   * abort), or a `ProviderError` when it ended before the message was complete.
   */
  end(): readonly StreamEvent[];
}

/** A started SDK stream: its chunks and the HTTP response they are read from. */
export interface OpenedStream<Chunk> {
  /** The SDK's `Stream`; its `controller` aborts the request. */
  readonly data: AsyncIterable<Chunk> & { readonly controller?: AbortController };
  /** The raw response, for its status and content type. */
  readonly response: Response;
}

/** How `mapStream` reads a vendor's stream. */
export interface MapStreamOptions {
  /**
   * What happens to the body once the mapper settled: `stop` reading it (the SDK aborts the
   * request), or `drain` it, ignoring every chunk and failure that follows, so the response ends
   * as the server ends it. Default `stop`.
   */
  readonly afterSettled?: 'stop' | 'drain';
  /** The error thrown for a failure while reading, before the mapper settled; default: as is. */
  readonly toError?: (error: unknown) => Error;
}

/**
 * Opens a vendor stream and reads its chunks through `mapper` into core's events: each chunk's
 * events as it arrives, then the mapper's closing events. What `open` throws (it starts the call
 * and checks the response) is thrown as is. The vendor adapters differ only in `open`, their
 * mapper and these options. One generator from the HTTP body to the caller: every layer of
 * `yield*` between them would cost each event a few promise turns.
 */
export async function* mapStream<Chunk>(
  open: () => Promise<AsyncIterable<Chunk>>,
  mapper: StreamMapper<Chunk>,
  options: MapStreamOptions = {},
): AsyncGenerator<StreamEvent> {
  const chunks = await open();
  const drain = options.afterSettled === 'drain';
  let settled = false;
  try {
    for await (const chunk of chunks) {
      if (settled) continue;
      yield* mapper.push(chunk);
      if (mapper.settled) {
        if (!drain) break;
        settled = true;
      }
    }
  } catch (error) {
    if (!settled) throw options.toError ? options.toError(error) : error;
  }
  yield* mapper.end();
}
