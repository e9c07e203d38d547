import type {
  ContentBlock,
  ImageBlock,
  Message,
  ModelRequest,
  ToolResultBlock,
  ToolSpec,
  ToolUseBlock,
} from '@mh/core';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { imageUrl } from './image-url.js';
import type { MaxTokensField, ReasoningEffort } from './openai-options.js';

/** Adapter settings that shape a Chat Completions request. */
export interface ChatRequestSettings {
  /** The field that carries `maxOutputTokens`. */
  readonly maxTokensField: MaxTokensField;
  /** Sent as `reasoning_effort` when set. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Echo unsigned thinking as `reasoning_content` on assistant messages (DeepSeek). */
  readonly sendReasoning: boolean;
}

/** An assistant message as sent, with the `reasoning_content` extension compatible servers read. */
type AssistantParam = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

/** A line standing in for an image where only text can go (Chat tool messages). */
function describeImage(image: ImageBlock): string {
  const where = image.url !== undefined ? ` at ${image.url}` : '';
  return `[image ${image.mediaType}${where} not shown: tool results carry text only here]`;
}

function toolMessage(result: ToolResultBlock): ChatCompletionMessageParam {
  const parts = result.content.map((block) =>
    block.type === 'text' ? block.text : describeImage(block),
  );
  return { role: 'tool', tool_call_id: result.toolUseId, content: parts.join('\n') };
}

function userContent(blocks: readonly ContentBlock[]): string | ChatCompletionContentPart[] {
  const parts: ChatCompletionContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    if (block.type === 'image')
      parts.push({ type: 'image_url', image_url: { url: imageUrl(block) } });
  }
  // A single text part goes as a plain string: the form every compatible server accepts.
  const [first] = parts;
  return parts.length === 1 && first?.type === 'text' ? first.text : parts;
}

function userMessages(message: Message): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  // Tool results first: Chat wants them right after the assistant message that made the calls.
  for (const block of message.content) {
    if (block.type === 'tool_result') messages.push(toolMessage(block));
  }
  const rest = message.content.filter((block) => block.type === 'text' || block.type === 'image');
  if (rest.length > 0) messages.push({ role: 'user', content: userContent(rest) });
  return messages;
}

function toolCall(block: ToolUseBlock): NonNullable<AssistantParam['tool_calls']>[number] {
  return {
    id: block.id,
    type: 'function',
    function: { name: block.name, arguments: block.rawInput ?? JSON.stringify(block.input ?? {}) },
  };
}

function assistantMessage(message: Message, settings: ChatRequestSettings): AssistantParam {
  let text = '';
  let reasoning = '';
  const calls: ToolUseBlock[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    if (block.type === 'tool_use') calls.push(block);
    // Signed or encrypted reasoning belongs to another API (Anthropic, Responses): never echoed.
    if (
      block.type === 'thinking' &&
      block.signature === undefined &&
      block.redacted === undefined
    ) {
      reasoning += block.thinking;
    }
  }
  const param: AssistantParam = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
  };
  if (calls.length > 0) param.tool_calls = calls.map(toolCall);
  if (settings.sendReasoning && reasoning !== '') param.reasoning_content = reasoning;
  return param;
}

function functionTool(tool: ToolSpec): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.inputSchema },
    },
  };
}

/**
 * Maps a vendor-neutral request to a streamed Chat Completions body. The system prompt is a
 * `system` message; tool results become `tool` messages (text only: images are described);
 * thinking is dropped unless `sendReasoning`; other vendors' blocks are dropped. Asks for usage
 * in the stream (`stream_options.include_usage`).
 */
export function toChatRequest(
  request: ModelRequest,
  settings: ChatRequestSettings,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined && request.system !== '') {
    messages.push({ role: 'system', content: request.system });
  }
  for (const message of request.messages) {
    if (message.role === 'user') messages.push(...userMessages(message));
    else messages.push(assistantMessage(message, settings));
  }
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = request.tools.map(functionTool);
  if (request.toolChoice === 'required' && request.tools.length > 0) body.tool_choice = 'required';
  if (request.maxOutputTokens !== undefined)
    body[settings.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    body.stop = [...request.stopSequences];
  }
  if (settings.reasoningEffort !== undefined) body.reasoning_effort = settings.reasoningEffort;
  if (request.output !== undefined) {
    const { name, schema, strict } = request.output;
    body.response_format = { type: 'json_schema', json_schema: { name, schema, strict } };
  }
  return body;
}
