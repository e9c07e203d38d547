import type {
  ContentBlock,
  Message,
  ModelRequest,
  ThinkingBlock,
  ToolResultBlock,
  ToolSpec,
} from '@mh/core';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { imageUrl } from './image-url.js';
import type { ReasoningEffort } from './openai-options.js';

/** Adapter settings that shape a Responses request. */
export interface ResponsesRequestSettings {
  /** Sent as `reasoning: { effort, summary: 'auto' }` when set. */
  readonly reasoningEffort?: ReasoningEffort;
}

/** `ProviderBlock.provider` of Responses output items kept verbatim (hosted tool calls). */
export const RESPONSES_BLOCK_PROVIDER = 'openai';

/**
 * Whether a thinking block is a Responses reasoning item that can be sent back: its signature is
 * the item id (`rs_…`) and `redacted` its encrypted content. Without the encrypted content a
 * stateless (`store: false`) request could not refer to it, so it is dropped.
 */
export function isReplayableReasoning(block: ThinkingBlock): boolean {
  return block.signature?.startsWith('rs_') === true && (block.redacted ?? '') !== '';
}

function reasoningItem(block: ThinkingBlock): ResponseInputItem {
  return {
    type: 'reasoning',
    id: block.signature ?? '',
    summary: block.thinking === '' ? [] : [{ type: 'summary_text', text: block.thinking }],
    encrypted_content: block.redacted ?? null,
  };
}

function inputContent(blocks: readonly ContentBlock[]): ResponseInputContent[] {
  const parts: ResponseInputContent[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'input_text', text: block.text });
    if (block.type === 'image') {
      parts.push({ type: 'input_image', image_url: imageUrl(block), detail: 'auto' });
    }
  }
  return parts;
}

function functionCallOutput(result: ToolResultBlock): ResponseInputItem {
  const textOnly = result.content.every((block) => block.type === 'text');
  const output = textOnly
    ? result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
    : (inputContent(result.content) as ResponseFunctionCallOutputItemList);
  return { type: 'function_call_output', call_id: result.toolUseId, output };
}

function userItems(message: Message): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') items.push(functionCallOutput(block));
  }
  const content = inputContent(message.content);
  if (content.length > 0) items.push({ role: 'user', content });
  return items;
}

function assistantItems(message: Message): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let text = '';
  const flushText = (): void => {
    if (text !== '') items.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const block of message.content) {
    if (block.type === 'text') {
      text += block.text;
      continue;
    }
    flushText();
    if (block.type === 'thinking' && isReplayableReasoning(block)) items.push(reasoningItem(block));
    if (block.type === 'tool_use') {
      items.push({
        type: 'function_call',
        call_id: block.id,
        name: block.name,
        arguments: block.rawInput ?? JSON.stringify(block.input ?? {}),
      });
    }
    // Hosted tool items (web search, …) go back as received; other vendors' blocks are dropped.
    if (block.type === 'provider' && block.provider === RESPONSES_BLOCK_PROVIDER) {
      const data = block.data as { type?: unknown } | null;
      if (typeof data?.type === 'string') items.push(data as ResponseInputItem);
    }
  }
  flushText();
  return items;
}

function functionTool(tool: ToolSpec): FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: { ...tool.inputSchema },
    strict: false,
  };
}

/**
 * Maps a vendor-neutral request to a streamed, stateless Responses body: `instructions` for the
 * system prompt, the whole history as input items (`function_call` / `function_call_output`
 * paired by `call_id`, reasoning items sent back with their id and encrypted content), `store:
 * false` and `include: ['reasoning.encrypted_content']`. The API has no stop sequences: they are
 * not sent.
 */
export function toResponsesRequest(
  request: ModelRequest,
  settings: ResponsesRequestSettings,
): ResponseCreateParamsStreaming {
  const input: ResponseInputItem[] = [];
  for (const message of request.messages) {
    input.push(...(message.role === 'user' ? userItems(message) : assistantItems(message)));
  }
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    input,
    stream: true,
    store: false,
    include: ['reasoning.encrypted_content'],
  };
  if (request.system !== undefined && request.system !== '') body.instructions = request.system;
  if (request.tools.length > 0) body.tools = request.tools.map(functionTool);
  if (request.toolChoice === 'required' && request.tools.length > 0) body.tool_choice = 'required';
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (settings.reasoningEffort !== undefined) {
    body.reasoning = { effort: settings.reasoningEffort, summary: 'auto' };
  }
  if (request.output !== undefined) {
    const { name, schema, strict } = request.output;
    body.text = { format: { type: 'json_schema', name, schema, strict } };
  }
  return body;
}
