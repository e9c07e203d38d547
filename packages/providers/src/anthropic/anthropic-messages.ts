import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ContentBlock, ImageBlock, Message, TextBlock } from '@mh/core';

/** A block or tool that can carry a `cache_control` breakpoint. */
export interface CacheableParam {
  /** The breakpoint marker; the prefix up to and including this block is cached. */
  cache_control?: { type: 'ephemeral' } | null;
}

/** The Anthropic messages of a history, and the block a cache breakpoint should go on. */
export interface AnthropicMessages {
  /** Messages as the Messages API takes them: alternating roles, no empty content. */
  readonly messages: MessageParam[];
  /** The last cacheable block of the message named by `breakpointAt`, when it survived mapping. */
  readonly breakpointBlock: CacheableParam | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function textParam(block: TextBlock): TextBlockParam | undefined {
  // The API rejects empty text blocks; a stream can produce one (a text block with no deltas).
  return block.text.length > 0 ? { type: 'text', text: block.text } : undefined;
}

function imageParam(block: ImageBlock): ImageBlockParam {
  const source: ImageBlockParam['source'] =
    block.data !== undefined
      ? {
          type: 'base64',
          media_type: block.mediaType as 'image/png',
          data: block.data,
        }
      : { type: 'url', url: block.url ?? '' };
  return { type: 'image', source };
}

function blockParam(block: ContentBlock): ContentBlockParam | undefined {
  switch (block.type) {
    case 'text':
      return textParam(block);
    case 'image':
      return imageParam(block);
    case 'thinking':
      if (block.redacted !== undefined) return { type: 'redacted_thinking', data: block.redacted };
      // Anthropic verifies the signature; an unsigned block (another vendor's reasoning) would be
      // rejected, so it is not sent.
      if (block.signature === undefined) return undefined;
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        // The API takes only an object; `{}` is what the call was answered for.
        input: isObject(block.input) ? block.input : {},
      };
    case 'tool_result': {
      const content: (TextBlockParam | ImageBlockParam)[] = [];
      for (const part of block.content) {
        const param = part.type === 'text' ? textParam(part) : imageParam(part);
        if (param) content.push(param);
      }
      const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: block.toolUseId };
      if (content.length > 0) result.content = content;
      if (block.isError) result.is_error = true;
      return result;
    }
    case 'provider':
      // A copy: a cache breakpoint may be added to it, and the history must not change.
      return block.provider === 'anthropic' && isObject(block.data)
        ? ({ ...block.data } as unknown as ContentBlockParam)
        : undefined;
  }
}

/** The last of `blocks` that can carry a cache breakpoint (thinking blocks cannot). */
export function lastCacheable(blocks: readonly ContentBlockParam[]): CacheableParam | undefined {
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    // Thinking blocks cannot carry cache_control; the breakpoint goes on the block before.
    if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      return block as CacheableParam;
    }
  }
  return undefined;
}

/**
 * Maps a vendor-neutral history to Anthropic messages. Blocks the API would reject are left out
 * (empty text, unsigned thinking, other vendors' provider blocks), messages left empty are
 * dropped, consecutive messages of one role are merged, and in user messages tool results come
 * first, as the API requires. `breakpointAt` is the index of the message whose last block gets
 * a cache breakpoint (-1: none).
 */
export function toAnthropicMessages(
  history: readonly Message[],
  breakpointAt = -1,
): AnthropicMessages {
  const messages: MessageParam[] = [];
  let breakpointBlock: CacheableParam | undefined;
  history.forEach((message, index) => {
    const blocks: ContentBlockParam[] = [];
    for (const block of message.content) {
      const param = blockParam(block);
      if (param) blocks.push(param);
    }
    if (index === breakpointAt) breakpointBlock = lastCacheable(blocks);
    if (blocks.length === 0) return;
    const previous = messages.at(-1);
    if (previous?.role === message.role) (previous.content as ContentBlockParam[]).push(...blocks);
    else messages.push({ role: message.role, content: blocks });
  });
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const content = message.content as ContentBlockParam[];
    const results = content.filter((block) => block.type === 'tool_result');
    if (results.length > 0 && results.length < content.length) {
      message.content = [...results, ...content.filter((block) => block.type !== 'tool_result')];
    }
  }
  return { messages, breakpointBlock };
}
