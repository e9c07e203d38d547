import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import { toolResultText } from '../messages/message.js';
import type { ModelRequest, StopReason } from '../ports/provider.js';
import type { Attributes } from '../ports/tracer.js';
import { SPAN_ATTRIBUTES } from './vocabulary.js';

/** Longest string kept in one content part; longer ones are cut and say by how much. */
export const MAX_CONTENT_PART_CHARS = 4_096;
/**
 * JSON budget of `gen_ai.input.messages`: the newest messages that fit (at least one) are kept.
 * Every model call resends the history, so without a budget captured content grows with the
 * square of the run's length; 16 KiB keeps a batch of 512 spans under collectors' request limits.
 */
export const MAX_INPUT_MESSAGES_CHARS = 16_384;

const FINISH_REASONS: Readonly<Record<StopReason, string>> = {
  end: 'stop',
  'stop-sequence': 'stop',
  'tool-use': 'tool_call',
  'max-tokens': 'length',
  refusal: 'content_filter',
  other: 'other',
};

/** Our stop reason in the GenAI conventions' words (`stop`, `tool_call`, `length`, …). */
export function finishReason(stopReason: StopReason): string {
  return FINISH_REASONS[stopReason] ?? 'other';
}

function cut(text: string): string {
  if (text.length <= MAX_CONTENT_PART_CHARS) return text;
  return `${text.slice(0, MAX_CONTENT_PART_CHARS)}…[+${text.length - MAX_CONTENT_PART_CHARS} chars]`;
}

/** A call's arguments: as given, or as cut JSON text when they are too long. */
function argumentsOf(call: ToolUseBlock): unknown {
  const json = call.rawInput ?? JSON.stringify(call.input ?? {});
  return json.length <= MAX_CONTENT_PART_CHARS && call.rawInput === undefined
    ? call.input
    : cut(json);
}

/** One block as a GenAI message part; binary data is left out, its type kept. */
function partOf(block: ContentBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: cut(block.text) };
    case 'thinking':
      return { type: 'reasoning', content: cut(block.thinking) };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: argumentsOf(block) };
    case 'tool_result':
      return {
        type: 'tool_call_response',
        id: block.toolUseId,
        response: cut(toolResultText(block)),
      };
    case 'image':
      return block.url === undefined
        ? { type: 'blob', modality: 'image', mime_type: block.mediaType }
        : { type: 'uri', modality: 'image', mime_type: block.mediaType, uri: block.url };
    default:
      return { type: block.type };
  }
}

/** A message in the GenAI messages schema; a user message of tool results has the role `tool`. */
function genAiMessage(message: Message): Record<string, unknown> {
  const onlyResults =
    message.role === 'user' &&
    message.content.length > 0 &&
    message.content.every((block) => block.type === 'tool_result');
  return { role: onlyResults ? 'tool' : message.role, parts: message.content.map(partOf) };
}

/**
 * Each message's GenAI JSON, kept while the message lives: messages are immutable and every
 * request resends the history, so each is serialized once per run, not once per turn.
 */
const jsonCache = new WeakMap<Message, string>();

function messageJson(message: Message): string {
  let json = jsonCache.get(message);
  if (json === undefined) {
    json = JSON.stringify(genAiMessage(message));
    jsonCache.set(message, json);
  }
  return json;
}

/**
 * The attributes of the `gen_ai.client.inference.operation.details` event: system instructions,
 * input messages (the newest that fit `MAX_INPUT_MESSAGES_CHARS`; the count left out goes in
 * `mh.content.omitted_messages`) and, for a completed call, the output message.
 */
export function inferenceDetails(
  request: ModelRequest,
  output?: { readonly message: Message; readonly stopReason: StopReason },
): Attributes {
  const kept: string[] = [];
  let size = 0;
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const json = messageJson(request.messages[index] as Message);
    if (kept.length > 0 && size + json.length > MAX_INPUT_MESSAGES_CHARS) break;
    kept.push(json);
    size += json.length + 1;
  }
  const omitted = request.messages.length - kept.length;
  return {
    [SPAN_ATTRIBUTES.systemInstructions]:
      request.system === undefined
        ? undefined
        : JSON.stringify([{ type: 'text', content: cut(request.system) }]),
    [SPAN_ATTRIBUTES.inputMessages]: `[${kept.reverse().join(',')}]`,
    [SPAN_ATTRIBUTES.contentOmittedMessages]: omitted > 0 ? omitted : undefined,
    [SPAN_ATTRIBUTES.outputMessages]:
      output === undefined
        ? undefined
        : JSON.stringify([
            { ...genAiMessage(output.message), finish_reason: finishReason(output.stopReason) },
          ]),
  };
}

/** The attributes of the `mh.tool.call.details` event: the call's arguments and result. */
export function toolCallDetails(call: ToolUseBlock, result: ToolResultBlock): Attributes {
  return {
    [SPAN_ATTRIBUTES.toolCallArguments]: cut(call.rawInput ?? JSON.stringify(call.input ?? {})),
    [SPAN_ATTRIBUTES.toolCallResult]: cut(toolResultText(result)),
  };
}
