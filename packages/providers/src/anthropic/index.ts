export {
  ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS,
  ANTHROPIC_MIN_THINKING_BUDGET,
  type AnthropicOptions,
} from './anthropic-options.js';
export { AnthropicProvider, anthropic } from './anthropic-provider.js';
