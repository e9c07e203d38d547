import type { Message, ModelRequest, Provider, StreamEvent, StreamOptions } from '@mh/core';
import type { KeyContext } from '../cassette/context.js';
import type { CassetteKey } from '../cassette/format.js';
import { recordStream } from './stream.js';

/**
 * A provider that passes every call to another one and records the request and everything it
 * answered (events with their times, usage, `stream-reset`s, the final `message-end`, or the
 * failure) as one cassette line per call. Get one per (case, repeat) from
 * `cassette.provider(inner, key)` on a cassette opened in `record` mode.
 */
export class RecordingProvider implements Provider {
  /** The inner provider's name: spans and errors look the same as without recording. */
  readonly name: string;
  /** The inner provider's `nativeOutput`: typed output is recorded in the form it really took. */
  readonly nativeOutput: boolean | undefined;
  readonly #inner: Provider;
  readonly #context: KeyContext;
  #previous: readonly Message[] | undefined;

  /** @internal Use `cassette.provider(inner, key)`. */
  constructor(inner: Provider, context: KeyContext) {
    this.name = inner.name;
    this.nativeOutput = inner.nativeOutput;
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
    const shared = sharedPrefix(this.#previous, request.messages);
    this.#previous = request.messages;
    return recordStream(
      () => this.#inner.stream(request, options),
      request,
      index,
      this.#context,
      options.signal,
      shared,
    );
  }
}

/**
 * How many leading messages `next` shares with `previous`, by identity. The loop sends the same
 * message objects again while the history only grows, so each line stores only the new messages
 * and a cassette grows linearly with a run, not with the square of its length. A compaction or a
 * repair builds new objects: the prefix then ends there and the rest is stored in full.
 */
function sharedPrefix(previous: readonly Message[] | undefined, next: readonly Message[]): number {
  if (previous === undefined) return 0;
  const limit = Math.min(previous.length, next.length);
  let shared = 0;
  while (shared < limit && previous[shared] === next[shared]) shared++;
  return shared;
}
