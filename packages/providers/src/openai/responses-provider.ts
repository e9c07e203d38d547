import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '@mh/core';
import type { OpenAI } from 'openai';
import { openAIClient, requestOptions } from './openai-client.js';
import type { ErrorContext } from './openai-error.js';
import {
  type OpenAIOptions,
  type ResolvedOpenAIOptions,
  resolveOpenAIOptions,
} from './openai-options.js';
import { readOpenAIStream } from './openai-stream.js';
import { toResponsesRequest } from './responses-request.js';
import { ResponsesStreamMapper } from './responses-stream.js';

/**
 * A `Provider` on OpenAI's Responses API, through the official `openai` SDK. Stateless: every call
 * sends the whole history with `store: false`, and reasoning travels back as encrypted content.
 * The SDK's retries are off; wrap it in `withRetry` to retry.
 */
export class OpenAIResponsesProvider implements Provider {
  /** `options.name`, default `openai`: the name in spans and `ProviderError.provider`. */
  readonly name: string;
  readonly #options: ResolvedOpenAIOptions;
  readonly #client: OpenAI;

  /** Validates `options` (a `ConfigError` names the bad field) and builds the SDK client. */
  constructor(options: OpenAIOptions = {}) {
    this.#options = resolveOpenAIOptions(options, 'responses');
    this.name = this.#options.name;
    this.#client = openAIClient(this.#options);
  }

  /** Streams one Responses call as core events; failures are thrown as `ProviderError`. */
  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const context: ErrorContext = {
      provider: this.name,
      endpoint: this.#options.endpoint,
      signal: options.signal,
    };
    const body = toResponsesRequest(request, this.#options);
    return readOpenAIStream(
      () =>
        this.#client.responses
          .create(body, requestOptions(this.#options, options.signal))
          .withResponse(),
      new ResponsesStreamMapper(context),
      context,
    );
  }
}
