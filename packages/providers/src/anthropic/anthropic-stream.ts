import { CancelledError, ProviderError, type StreamEvent } from '@mh/core';
import { mapStream, type OpenedStream, type StreamMapper } from '../stream-mapper.js';
import { snippet, toAnthropicError } from './anthropic-error.js';
import { MessageAssembler } from './message-assembler.js';

/**
 * Maps the SDK's raw Messages stream events to unified `StreamEvent`s through a
 * `MessageAssembler`, which emits `message-end` when `message_stop` arrives: the mapper is then
 * settled. It counts what arrived, so a stream cut short says how far it got.
 */
export class AnthropicStreamMapper implements StreamMapper<unknown> {
  readonly #assembler = new MessageAssembler();
  readonly #signal: AbortSignal | undefined;
  #received = 0;
  #last = 'none';

  /** A mapper for one call; an end before `message_stop` while `signal` is aborted is a cancel. */
  constructor(signal?: AbortSignal) {
    this.#signal = signal;
  }

  /** True once `message_stop` arrived: the message is complete. */
  get settled(): boolean {
    return this.#assembler.ended;
  }

  /** The events of one raw stream event; throws a `ProviderError` when it breaks the protocol. */
  push(raw: unknown): readonly StreamEvent[] {
    this.#received++;
    const type = (raw as { type?: unknown } | null)?.type;
    this.#last = typeof type === 'string' ? type : 'unknown';
    return this.#assembler.accept(raw);
  }

  /**
   * Nothing once `message_stop` arrived (its events already went out). Before it, a
   * `CancelledError` when the signal was aborted, else a retryable `network` `ProviderError`.
   */
  end(): readonly StreamEvent[] {
    if (this.#assembler.ended) return [];
    if (this.#signal?.aborted) throw new CancelledError('Anthropic stream cancelled');
    throw new ProviderError(
      `Anthropic stream ended before message_stop (${this.#received} events, last: ${this.#last})`,
      { kind: 'network', provider: 'anthropic' },
    );
  }
}

/**
 * Maps the SDK's raw Messages stream events to unified `StreamEvent`s, ending with exactly one
 * `message-end`. A stream that ends before `message_stop` throws: `CancelledError` when `signal`
 * was aborted (the SDK ends its iterator silently on abort), else a retryable `network`
 * `ProviderError` that says how far it got. Anything after `message_stop`, errors included, is
 * read and ignored: the message is already complete.
 */
export function mapAnthropicStream(
  events: AsyncIterable<unknown>,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  return mapStream(async () => events, new AnthropicStreamMapper(signal), {
    afterSettled: 'drain',
  });
}

/** Reads at most `limit` characters of a body, then cancels it (the rest may never come). */
async function readStart(response: Response, limit = 2048): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text;
}

/** Starts the call and checks its response is an event stream; failures as harness errors. */
async function openEventStream(
  open: () => Promise<OpenedStream<unknown>>,
  signal: AbortSignal | undefined,
): Promise<AsyncIterable<unknown>> {
  try {
    const { data, response } = await open();
    const contentType = response.headers.get('content-type');
    if (contentType !== null && !contentType.includes('text/event-stream')) {
      const body = await readStart(response);
      data.controller?.abort();
      throw new ProviderError(
        `Anthropic HTTP ${response.status}: expected an event stream, received ${contentType}: ${snippet(body) || '(empty body)'}`,
        { kind: 'server', status: response.status, retryable: false, provider: 'anthropic' },
      );
    }
    return data;
  } catch (error) {
    throw toAnthropicError(error, signal);
  }
}

/**
 * Runs one streamed Messages API call and maps it as `mapAnthropicStream` does. Every failure
 * leaves as a harness error (`toAnthropicError`): `ProviderError` (HTTP errors, error events, a
 * broken or truncated stream, a body that is not an event stream) or `CancelledError` (the
 * caller's signal).
 */
export function readAnthropicStream(
  open: () => Promise<OpenedStream<unknown>>,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent> {
  return mapStream(() => openEventStream(open, signal), new AnthropicStreamMapper(signal), {
    afterSettled: 'drain',
    toError: (error) => toAnthropicError(error, signal),
  });
}
