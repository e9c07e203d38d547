import type { ModelRequest } from '@mh/core';
import type { OpenAI } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { OpenedStream, StreamMapper } from '../stream-mapper.js';
import { toChatRequest } from './chat-request.js';
import { type ChatChunk, ChatStreamMapper } from './chat-stream.js';
import type { ErrorContext } from './openai-error.js';
import type { OpenAIApi, ResolvedOpenAIOptions } from './openai-options.js';
import { toResponsesRequest } from './responses-request.js';
import { ResponsesStreamMapper } from './responses-stream.js';

/** Per-request SDK options: no SDK retries even on a caller's client, the timeout, the signal. */
export interface SdkRequestOptions {
  /** Always 0: `withRetry` owns retrying. */
  readonly maxRetries: 0;
  /** The request timeout in milliseconds, when one is configured. */
  readonly timeout?: number;
  /** The caller's signal. */
  readonly signal?: AbortSignal;
}

/** The per-request SDK options for `options`: no SDK retries, the timeout, the caller's signal. */
export function requestOptions(
  options: ResolvedOpenAIOptions,
  signal: AbortSignal | undefined,
): SdkRequestOptions {
  return {
    maxRetries: 0,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(signal ? { signal } : {}),
  };
}

/**
 * One OpenAI wire API, as the strategy `OpenAIProvider` runs: how a request becomes the call's
 * body, how the body is sent, and which `StreamMapper` reads the answer.
 */
export interface OpenAIApiStrategy<Body, Chunk> {
  /** The body of one call; pure, so the same request always gives the same bytes. */
  build(request: ModelRequest, options: ResolvedOpenAIOptions): Body;
  /** Starts the streamed call on `client`. */
  send(client: OpenAI, body: Body, options: SdkRequestOptions): Promise<OpenedStream<Chunk>>;
  /** A fresh mapper for one call's stream; `context` names the provider and endpoint in errors. */
  mapper(context: ErrorContext): StreamMapper<Chunk>;
}

/** Chat Completions: OpenAI itself and every compatible server. */
const chat: OpenAIApiStrategy<ChatCompletionCreateParamsStreaming, ChatChunk> = {
  build: toChatRequest,
  send: (client, body, options) => client.chat.completions.create(body, options).withResponse(),
  mapper: (context) => new ChatStreamMapper(context),
};

/** The Responses API, stateless (`store: false`). */
const responses: OpenAIApiStrategy<ResponseCreateParamsStreaming, ResponseStreamEvent> = {
  build: toResponsesRequest,
  send: (client, body, options) => client.responses.create(body, options).withResponse(),
  mapper: (context) => new ResponsesStreamMapper(context),
};

/** The strategy of each wire API `openai({ api })` accepts. */
export const OPENAI_API_STRATEGIES: Readonly<
  Record<OpenAIApi, OpenAIApiStrategy<unknown, unknown>>
> = { chat, responses };
