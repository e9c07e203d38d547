/** A plain-text block. */
export interface TextBlock {
  readonly type: 'text';
  /** The text, verbatim. */
  readonly text: string;
}

/**
 * Model reasoning. Providers that sign their reasoning (Anthropic) must get the block back
 * unchanged on the next request, so `signature` (and `redacted` data) is kept byte for byte.
 */
export interface ThinkingBlock {
  readonly type: 'thinking';
  /** The reasoning text as streamed (may be empty when the provider redacts it). */
  readonly thinking: string;
  /** The provider's signature over the reasoning; required to send the block back. */
  readonly signature?: string;
  /** Opaque encrypted reasoning some providers return instead of text. */
  readonly redacted?: string;
}

/** A tool call made by the model. Lives only in assistant messages. */
export interface ToolUseBlock {
  readonly type: 'tool_use';
  /** Provider-assigned call id; unique within a history. */
  readonly id: string;
  /** Name of the tool the model asked for (may name a tool that does not exist). */
  readonly name: string;
  /** Parsed arguments. `{}` when the model sent none or sent JSON that could not be parsed. */
  readonly input: unknown;
  /**
   * The raw argument text when it was not valid JSON. Kept so nothing the model sent is lost; the
   * executor answers such a call with an `isError` result instead of running the tool.
   */
  readonly rawInput?: string;
}

/** The outcome of one tool call. Lives only in user messages, right after its call. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  /** The `id` of the `tool_use` block this answers. */
  readonly toolUseId: string;
  /** What the model reads: text, and images where the tool produced them. */
  readonly content: readonly (TextBlock | ImageBlock)[];
  /** True when the call failed, was denied, was invalid, or was cancelled. */
  readonly isError: boolean;
}

/** An image, inline as base64 or by URL. */
export interface ImageBlock {
  readonly type: 'image';
  /** IANA media type such as `image/png`. */
  readonly mediaType: string;
  /** Base64 data (no data: prefix), or absent when `url` is given. */
  readonly data?: string;
  /** A URL the provider can fetch, or absent when `data` is given. */
  readonly url?: string;
}

/**
 * A vendor-specific block kept verbatim so it can be sent back to the same vendor (Anthropic's
 * server-side tool calls and their results, say). Other vendors' adapters drop it; the loop never
 * executes it.
 */
export interface ProviderBlock {
  readonly type: 'provider';
  /** The vendor whose adapter produced it, e.g. `anthropic`. */
  readonly provider: string;
  /** The vendor's block, as received. */
  readonly data: unknown;
}

/** Every block a message can hold. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | ProviderBlock;

/** The two conversation roles. The system prompt travels separately, on the request. */
export const MESSAGE_ROLES = ['user', 'assistant'] as const;
/** A conversation role. */
export type Role = (typeof MESSAGE_ROLES)[number];

/** One message of a vendor-neutral conversation. */
export interface Message {
  /** Stable id, unique within a history (used by compaction records and sessions). */
  readonly id: string;
  /** Who said it. */
  readonly role: Role;
  /** The blocks, in order. */
  readonly content: readonly ContentBlock[];
  /** Free-form metadata (never sent to a provider). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

let counter = 0;

/** Makes ids: `newMessageId`, or a durable run's source that gives the same ids on a replay. */
export type IdSource = (prefix?: string) => string;

/** Returns a new message id: time-ordered, unique within the process, URL-safe. */
export function newMessageId(prefix = 'msg'): string {
  counter = (counter + 1) % 0x100000;
  const random = Math.floor(Math.random() * 0x100000)
    .toString(36)
    .padStart(4, '0');
  return `${prefix}_${Date.now().toString(36)}${counter.toString(36).padStart(4, '0')}${random}`;
}

/** Builds a user message from plain text. */
export function userMessage(text: string, id: string = newMessageId()): Message {
  return { id, role: 'user', content: [{ type: 'text', text }] };
}

/** Builds a text-only tool result. */
export function toolResult(toolUseId: string, text: string, isError = false): ToolResultBlock {
  return { type: 'tool_result', toolUseId, content: [{ type: 'text', text }], isError };
}

/** The concatenated text blocks of a message (thinking excluded). */
export function messageText(message: Message): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/** The tool calls of a message, in order. */
export function toolUsesOf(message: Message): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

/** The tool results of a message, in order. */
export function toolResultsOf(message: Message): ToolResultBlock[] {
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

/** The text of a tool result's text blocks, joined. */
export function toolResultText(result: ToolResultBlock): string {
  let text = '';
  for (const block of result.content) if (block.type === 'text') text += block.text;
  return text;
}
