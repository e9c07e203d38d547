import type {
  MessageCreateParamsStreaming,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { ConfigError, type Message, type ModelRequest } from '@mh/core';
import { type CacheableParam, toAnthropicMessages } from './anthropic-messages.js';
import { addCacheBreakpoints, lastMessageBlock } from './cache-breakpoints.js';

/** The provider settings a request mapping depends on. */
export interface AnthropicRequestSettings {
  /** Send `cache_control` breakpoints on the stable prefix. */
  readonly cache: boolean;
  /** Extended-thinking budget in tokens; undefined: thinking off. */
  readonly thinkingBudgetTokens?: number;
  /** `max_tokens` when the request sets none. */
  readonly defaultMaxOutputTokens: number;
}

/** The index of the latest message marked `meta.cacheBreakpoint === true` (-1: none). */
export function latestCacheBreakpoint(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.meta?.cacheBreakpoint === true) return index;
  }
  return -1;
}

/**
 * Maps a vendor-neutral request to the body of a streamed Messages API call. Pure: the same request
 * and settings always give the same body, so the cached prefix stays byte-stable. `temperature`
 * is sent whenever the request sets it. With caching on,
 * breakpoints go on the system prompt, the last tool and the last block of the latest message
 * marked `meta.cacheBreakpoint` (a compaction summary), and a moving one on the last block of the
 * newest message (except in summary calls), at most four in all: the stable prefix is read from
 * the cache every turn, and so is the conversation up to the previous turn.
 */
export function toAnthropicRequest(
  request: ModelRequest,
  settings: AnthropicRequestSettings,
): MessageCreateParamsStreaming {
  const maxTokens = request.maxOutputTokens ?? settings.defaultMaxOutputTokens;
  const budget = settings.thinkingBudgetTokens;
  if (budget !== undefined && budget >= maxTokens) {
    throw new ConfigError(
      'maxOutputTokens',
      `must exceed the thinking budget (${budget} tokens), got ${maxTokens}`,
    );
  }
  const breakpointAt = settings.cache ? latestCacheBreakpoint(request.messages) : -1;
  const { messages, breakpointBlock } = toAnthropicMessages(request.messages, breakpointAt);
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages,
    stream: true,
  };
  let systemBlock: TextBlockParam | undefined;
  if (request.system) {
    systemBlock = { type: 'text', text: request.system };
    params.system = [systemBlock];
  }
  if (request.tools.length > 0) {
    params.tools = request.tools.map(
      (tool): Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema as Tool.InputSchema,
      }),
    );
  }
  if (request.temperature !== undefined) {
    // Typed only by SDK 0.x; the field is sent as-is either way.
    (params as { temperature?: number }).temperature = request.temperature;
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    params.stop_sequences = [...request.stopSequences];
  }
  if (budget !== undefined) params.thinking = { type: 'enabled', budget_tokens: budget };
  // Forcing a tool call is refused with thinking on: the loop then takes a JSON text answer too.
  if (request.toolChoice === 'required' && params.tools !== undefined && budget === undefined)
    params.tool_choice = { type: 'any' };
  if (request.output !== undefined) {
    // Typed from SDK 1.x on; an older SDK sends the field as-is.
    (params as { output_config?: unknown }).output_config = {
      format: { type: 'json_schema', schema: request.output.schema },
    };
  }
  if (settings.cache) {
    addCacheBreakpoints(params, [
      systemBlock,
      params.tools?.at(-1) as CacheableParam | undefined,
      breakpointBlock,
      // A summary call is a one-off: caching its transcript would only cost the write premium.
      request.purpose === 'summary' ? undefined : lastMessageBlock(params),
    ]);
  }
  return params;
}
