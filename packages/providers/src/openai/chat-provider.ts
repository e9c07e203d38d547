import type { ModelRequest, Provider, StreamEvent, StreamOptions } from '@mh/core';
import type { OpenAI } from 'openai';
import { toChatRequest } from './chat-request.js';
import { ChatStreamMapper } from './chat-stream.js';
import { openAIClient, requestOptions } from './openai-client.js';
import type { ErrorContext } from './openai-error.js';
import {
  type OpenAIOptions,
  type ResolvedOpenAIOptions,
  resolveOpenAIOptions,
} from './openai-options.js';
import { readOpenAIStream } from './openai-stream.js';

/**
 * A `Provider` on the Chat Completions API, through the official `openai` SDK: OpenAI itself or
 * any compatible server (`baseURL`: vLLM, Ollama, DeepSeek, Qwen, OpenRouter…). The SDK's retries
 * are off; wrap it in `withRetry` to retry.
 */
export class OpenAICompatibleProvider implements Provider {
  /** `options.name`, default `openai`: the name in spans and `ProviderError.provider`. */
  readonly name: string;
  readonly #options: ResolvedOpenAIOptions;
  readonly #client: OpenAI;

  /** Validates `options` (a `ConfigError` names the bad field) and builds the SDK client. */
  constructor(options: OpenAIOptions = {}) {
    this.#options = resolveOpenAIOptions(options, 'chat');
    this.name = this.#options.name;
    this.#client = openAIClient(this.#options);
  }

  /** Streams one Chat Completions call as core events; failures are thrown as `ProviderError`. */
  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const context: ErrorContext = {
      provider: this.name,
      endpoint: this.#options.endpoint,
      signal: options.signal,
    };
    const body = toChatRequest(request, this.#options);
    return readOpenAIStream(
      () =>
        this.#client.chat.completions
          .create(body, requestOptions(this.#options, options.signal))
          .withResponse(),
      new ChatStreamMapper(context),
      context,
    );
  }
}
