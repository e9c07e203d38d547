export {
  MAX_TOKENS_FIELDS,
  type MaxTokensField,
  OPENAI_APIS,
  type OpenAIApi,
  type OpenAIOptions,
  REASONING_EFFORTS,
  type ReasoningEffort,
} from './openai-options.js';
export {
  OpenAICompatibleProvider,
  OpenAIProvider,
  OpenAIResponsesProvider,
  openai,
} from './openai-provider.js';
