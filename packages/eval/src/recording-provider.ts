import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '@mh/core';
import type { KeyContext } from './cassette-context.js';
import type { CassetteKey } from './cassette-format.js';
import { recordStream } from './recording-stream.js';

/**
 * A provider that passes every call to another one and records the request and everything it
 * answered (events with their times, usage, `stream-reset`s, the final `message-end`, or the
 * failure) as one cassette line per call. Get one per (case, repeat) from
 * `cassette.provider(inner, key)` on a cassette opened in `record` mode.
 */
export class RecordingProvider implements Provider {
  /** The inner provider's name: spans and errors look the same as without recording. */
  readonly name: string;
  readonly #inner: Provider;
  readonly #context: KeyContext;

  /** @internal Use `cassette.provider(inner, key)`. */
  constructor(inner: Provider, context: KeyContext) {
    this.name = inner.name;
    this.#inner = inner;
    this.#context = context;
  }

  /** The recording this provider writes. */
  get key(): CassetteKey {
    return this.#context.key;
  }

  /** Model calls started so far. */
  get requests(): number {
    return this.#context.state.requests;
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const index = this.#context.state.requests++;
    return recordStream(
      () => this.#inner.stream(request, options),
      request,
      index,
      this.#context,
      options.signal,
    );
  }
}
