import { OpenAI } from 'openai';
import type { ResolvedOpenAIOptions } from './openai-options.js';

/**
 * Error bodies of failed HTTP responses, keyed by the response's `Headers` object: the SDK puts
 * that same object on the `APIError` it throws, so the error mapping can quote what the server
 * said even when the SDK dropped it (a JSON body without an `error` key, say).
 */
const errorBodies = new WeakMap<object, string>();

/** The body of the failed response whose headers are `headers`, when this module's client saw it. */
export function recordedErrorBody(headers: unknown): string | undefined {
  return typeof headers === 'object' && headers !== null ? errorBodies.get(headers) : undefined;
}

/** `fetch` that keeps a copy of every non-2xx body (small, never a stream) for error messages. */
async function recordingFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok) {
    const text = await response
      .clone()
      .text()
      .catch(() => '');
    errorBodies.set(response.headers, text);
  }
  return response;
}

/**
 * The SDK client for resolved options: the caller's, untouched, or a new one with the SDK's own
 * retries off (`maxRetries: 0`), because `withRetry` owns retrying. Its logger is off unless
 * `OPENAI_LOG` asks for it: every failure reaches the caller as a `ProviderError` already, and a
 * library should not write to stderr on its own.
 */
export function openAIClient(
  options: ResolvedOpenAIOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): OpenAI {
  if (options.client) return options.client;
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    organization: options.organization,
    timeout: options.timeoutMs,
    maxRetries: 0,
    fetch: recordingFetch,
    ...(env.OPENAI_LOG ? {} : { logLevel: 'off' as const }),
  });
}
