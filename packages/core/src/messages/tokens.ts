import type { ModelRequest } from '../ports/provider.js';
import type { ContentBlock, Message } from './message.js';

/**
 * Estimates tokens without a tokenizer. The heuristic: ASCII text costs one token per 4
 * characters (the rule of thumb both Anthropic and OpenAI publish for English and code); every
 * other code point (accents, CJK, emoji) costs one token, since BPE vocabularies split them finely.
 * It errs high on non-Latin text on purpose: context checks should fail early, not late.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const char of text) {
    if ((char.codePointAt(0) ?? 0) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** Tokens assumed for an image whose size is unknown (about a 1,000 × 1,000 picture). */
export const IMAGE_TOKENS = 1_600;
/** Per-message framing tokens (role markers and separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Estimates one content block. */
export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return estimateTokens(block.text);
    case 'thinking':
      return estimateTokens(block.thinking) + (block.redacted ? estimateTokens(block.redacted) : 0);
    case 'tool_use':
      return (
        estimateTokens(block.name) +
        estimateTokens(block.rawInput ?? JSON.stringify(block.input) ?? '') +
        8
      );
    case 'tool_result': {
      let sum = 8;
      for (const part of block.content) sum += estimateBlockTokens(part);
      return sum;
    }
    case 'image':
      return IMAGE_TOKENS;
    case 'provider':
      return estimateTokens(JSON.stringify(block.data) ?? '');
  }
}

/** Estimates one message. */
export function estimateMessageTokens(message: Message): number {
  let sum = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) sum += estimateBlockTokens(block);
  return sum;
}

/** Estimates the prompt of a whole request: system, tool schemas and messages. */
export function estimateRequestTokens(request: ModelRequest): number {
  let sum = request.system ? estimateTokens(request.system) : 0;
  for (const tool of request.tools) {
    sum +=
      estimateTokens(tool.name) +
      estimateTokens(tool.description) +
      estimateTokens(JSON.stringify(tool.inputSchema));
  }
  for (const message of request.messages) sum += estimateMessageTokens(message);
  return sum;
}
