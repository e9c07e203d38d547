import {
  ConfigError,
  type ModelRequest,
  type Provider,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import type { OpenAI } from 'openai';
import { openAIClient } from './openai-client.js';
import type { ErrorContext } from './openai-error.js';
import {
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAIOptions,
  type ResolvedOpenAIOptions,
  resolveOpenAIOptions,
} from './openai-options.js';
import { OPENAI_API_STRATEGIES, type OpenAIApiStrategy, requestOptions } from './openai-request.js';
import { readOpenAIStream } from './openai-stream.js';

/**
 * A `Provider` on OpenAI or any OpenAI-compatible server (`baseURL`: vLLM, Ollama, DeepSeek, Qwen,
 * OpenRouter…), through the official `openai` SDK. `options.api` picks the wire API: Chat
 * Completions (the default) or the Responses API, which is stateless here: every call sends the
 * whole history with `store: false`, and reasoning travels back as encrypted content. The SDK's
 * retries are off; wrap it in `withRetry` to retry.
 */
export class OpenAIProvider implements Provider {
  /** `options.name`, default `openai`: the name in spans and `ProviderError.provider`. */
  readonly name: string;
  /** The wire API every call goes to: `chat` (Chat Completions) or `responses`. */
  readonly api: OpenAIApi;
  /** Whether typed output goes in the native form (`options.nativeOutput`). */
  readonly nativeOutput: boolean;
  readonly #options: ResolvedOpenAIOptions;
  readonly #client: OpenAI;
  readonly #strategy: OpenAIApiStrategy<unknown, unknown>;

  /**
   * Validates `options` (a `ConfigError` names the bad field) and builds the SDK client. `api`,
   * when given, overrides `options.api`.
   */
  constructor(options: OpenAIOptions = {}, api?: OpenAIApi) {
    const chosen = api ?? options?.api ?? 'chat';
    // Validates options.api too, before it picks a strategy.
    this.#options = resolveOpenAIOptions(options, chosen);
    this.name = this.#options.name;
    this.api = chosen;
    this.nativeOutput = this.#options.nativeOutput;
    this.#strategy = OPENAI_API_STRATEGIES[chosen];
    this.#client = openAIClient(this.#options);
  }

  /** Streams one call of the chosen API as core events; failures are thrown as `ProviderError`. */
  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const context: ErrorContext = {
      provider: this.name,
      endpoint: this.#options.endpoint,
      signal: options.signal,
    };
    const strategy = this.#strategy;
    const body = strategy.build(request, this.#options);
    return readOpenAIStream(
      () => strategy.send(this.#client, body, requestOptions(this.#options, options.signal)),
      strategy.mapper(context),
      context,
    );
  }
}

/**
 * An `OpenAIProvider` on the Chat Completions API, whatever `options.api` says.
 * @deprecated Use `OpenAIProvider` (or `openai()`), which takes the API as `options.api`.
 */
export class OpenAICompatibleProvider extends OpenAIProvider {
  /** Validates `options` and builds the SDK client; the API is always `chat`. */
  constructor(options: OpenAIOptions = {}) {
    super(options, 'chat');
  }
}

/**
 * An `OpenAIProvider` on the Responses API, whatever `options.api` says.
 * @deprecated Use `OpenAIProvider` with `api: 'responses'` (or `openai({ api: 'responses' })`).
 */
export class OpenAIResponsesProvider extends OpenAIProvider {
  /** Validates `options` and builds the SDK client; the API is always `responses`. */
  constructor(options: OpenAIOptions = {}) {
    super(options, 'responses');
  }
}

/**
 * Creates an `OpenAIProvider` for OpenAI or any OpenAI-compatible endpoint: Chat Completions by
 * default, or the Responses API with `api: 'responses'`. The SDK's own retries are off: wrap it
 * in `withRetry`.
 * @example
 * const gpt = openai(); // OPENAI_API_KEY from the environment
 * const reasoning = openai({ api: 'responses', reasoningEffort: 'low' });
 * const local = openai({ baseURL: 'http://localhost:11434/v1', name: 'ollama' });
 */
export function openai(options: OpenAIOptions = {}): OpenAIProvider {
  const api = options?.api ?? 'chat';
  if (!OPENAI_APIS.includes(api)) {
    throw new ConfigError('api', `expected 'chat' or 'responses', got ${JSON.stringify(api)}`);
  }
  return new OpenAIProvider(options, api);
}
