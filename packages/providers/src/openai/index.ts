export { OpenAICompatibleProvider } from './chat-provider.js';
export { openai } from './openai.js';
export {
  MAX_TOKENS_FIELDS,
  type MaxTokensField,
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAIOptions,
  REASONING_EFFORTS,
  type ReasoningEffort,
} from './openai-options.js';
export { OpenAIResponsesProvider } from './responses-provider.js';
