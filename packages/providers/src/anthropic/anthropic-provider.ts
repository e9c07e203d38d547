import { Anthropic } from '@anthropic-ai/sdk';
import {
  CancelledError,
  type ModelRequest,
  type Provider,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import {
  type AnthropicOptions,
  type ResolvedAnthropicOptions,
  resolveAnthropicOptions,
} from './anthropic-options.js';
import { type AnthropicRequestSettings, toAnthropicRequest } from './anthropic-request.js';
import { readAnthropicStream } from './anthropic-stream.js';

/**
 * The Anthropic Messages API as a `Provider`, on the official `@anthropic-ai/sdk`. It streams
 * every call (`stream: true`) and maps the raw events to unified `StreamEvent`s and every failure
 * to a `ProviderError` (or `CancelledError`). The SDK's own retries are off (`maxRetries: 0`):
 * `withRetry` owns retrying, so one `stream()` call is exactly one HTTP request. A request's
 * `temperature` is always sent when set — what the user asked for is never dropped quietly; an API
 * version that rejects it (reportedly 2026-10-21, sent by SDK 1.x) answers with a clear 400.
 */
export class AnthropicProvider implements Provider {
  /** Always `anthropic`: the name in spans and in every `ProviderError` it throws. */
  readonly name: string = 'anthropic';
  /** Typed output goes as `output_config.format` (structured outputs). */
  readonly nativeOutput = true;
  readonly #client: Anthropic;
  readonly #settings: AnthropicRequestSettings;
  readonly #timeoutMs: number | undefined;

  /** Validates `options` (throwing a `ConfigError` naming the field) and builds the client. */
  constructor(options: AnthropicOptions = {}) {
    const resolved: ResolvedAnthropicOptions = resolveAnthropicOptions(options);
    this.#client =
      resolved.client ??
      new Anthropic({
        apiKey: resolved.apiKey,
        baseURL: resolved.baseURL,
        maxRetries: 0,
        ...(resolved.timeoutMs === undefined ? {} : { timeout: resolved.timeoutMs }),
      });
    this.#settings = {
      cache: resolved.cache,
      thinkingBudgetTokens: resolved.thinkingBudgetTokens,
      defaultMaxOutputTokens: resolved.defaultMaxOutputTokens,
    };
    this.#timeoutMs = resolved.timeoutMs;
  }

  /** Per-request SDK options: retries off, the caller's signal, the configured timeout. */
  #requestOptions(signal: AbortSignal | undefined): {
    signal?: AbortSignal;
    maxRetries: number;
    timeout?: number;
  } {
    // The SDK validates `timeout` when the key is present, even as undefined.
    const options: { signal?: AbortSignal; maxRetries: number; timeout?: number } = {
      maxRetries: 0,
    };
    if (signal) options.signal = signal;
    if (this.#timeoutMs !== undefined) options.timeout = this.#timeoutMs;
    return options;
  }

  /** Streams one Messages API call; failures are thrown from the iterator. */
  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<StreamEvent> {
    const signal = options.signal;
    if (signal?.aborted) throw new CancelledError('Anthropic request cancelled before it started');
    const params = toAnthropicRequest(request, this.#settings);
    // Per-request maxRetries also covers a client the caller passed in (which is not modified).
    yield* readAnthropicStream(
      () => this.#client.messages.create(params, this.#requestOptions(signal)).withResponse(),
      signal,
    );
  }
}

/**
 * Creates an `AnthropicProvider`. The key comes from `apiKey` or `ANTHROPIC_API_KEY` (a
 * `ConfigError` naming it when both are missing), unless an existing `client` is passed.
 * @example
 * const provider = anthropic({ thinking: { budgetTokens: 2048 } });
 * for await (const event of provider.stream({ model: 'claude-sonnet-4-5', messages, tools: [] })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.text);
 * }
 */
export function anthropic(options?: AnthropicOptions): AnthropicProvider {
  return new AnthropicProvider(options);
}
