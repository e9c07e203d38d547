import type { Provider } from '@mh/core';
import { ConfigError } from '@mh/core';
import { OpenAICompatibleProvider } from './chat-provider.js';
import { OPENAI_APIS, type OpenAIOptions } from './openai-options.js';
import { OpenAIResponsesProvider } from './responses-provider.js';

/**
 * Creates a provider for OpenAI or any OpenAI-compatible endpoint: Chat Completions by default
 * (`OpenAICompatibleProvider`), or the Responses API with `api: 'responses'`
 * (`OpenAIResponsesProvider`). The SDK's own retries are off: wrap it in `withRetry`.
 * @example
 * const gpt = openai(); // OPENAI_API_KEY from the environment
 * const reasoning = openai({ api: 'responses', reasoningEffort: 'low' });
 * const local = openai({ baseURL: 'http://localhost:11434/v1', name: 'ollama' });
 */
export function openai(options: OpenAIOptions = {}): Provider {
  const api = options?.api ?? 'chat';
  if (!OPENAI_APIS.includes(api)) {
    throw new ConfigError('api', `expected 'chat' or 'responses', got ${JSON.stringify(api)}`);
  }
  return api === 'responses'
    ? new OpenAIResponsesProvider(options)
    : new OpenAICompatibleProvider(options);
}
