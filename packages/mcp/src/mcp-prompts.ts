import { describeContent } from './describe-content.js';
import type { McpContentPart } from './mcp-connection.js';
import { fenceUntrusted } from './untrusted-output.js';

/** An argument a prompt takes. */
export interface McpPromptArgument {
  /** Its name. */
  readonly name: string;
  /** Its description ('' when absent). */
  readonly description: string;
  /** True when the prompt needs it. */
  readonly required: boolean;
}

/** A prompt as listed by a server (untrusted text). */
export interface McpPromptInfo {
  /** Its name, used to get it. */
  readonly name: string;
  /** Its description ('' when absent). */
  readonly description: string;
  /** The arguments it takes. */
  readonly arguments: readonly McpPromptArgument[];
}

/** One message of a prompt. */
export interface McpPromptMessage {
  /** Who says it. */
  readonly role: 'user' | 'assistant';
  /** What is said: a text, image, audio or resource part (untrusted). */
  readonly content: McpContentPart;
}

/** A prompt filled in by the server. */
export interface McpPromptResult {
  /** Its description ('' when absent). */
  readonly description: string;
  /** Its messages, in order. */
  readonly messages: readonly McpPromptMessage[];
}

/** Checks one `prompts/list` entry: the prompt, or why it is dropped. */
export function parsePromptInfo(entry: unknown): McpPromptInfo | string {
  if (typeof entry !== 'object' || entry === null) return 'entry is not an object';
  const record = entry as Record<string, unknown>;
  if (typeof record.name !== 'string' || record.name === '') return 'entry has no name';
  const args = Array.isArray(record.arguments) ? record.arguments : [];
  return {
    name: record.name,
    description: typeof record.description === 'string' ? record.description : '',
    arguments: args
      .filter(
        (arg): arg is Record<string, unknown> =>
          typeof arg === 'object' && arg !== null && typeof arg.name === 'string',
      )
      .map((arg) => ({
        name: arg.name as string,
        description: typeof arg.description === 'string' ? arg.description : '',
        required: arg.required === true,
      })),
  };
}

/** Checks one prompt message: the message, or why it is dropped. */
export function parsePromptMessage(entry: unknown): McpPromptMessage | string {
  if (typeof entry !== 'object' || entry === null) return 'message is not an object';
  const { role, content } = entry as Record<string, unknown>;
  if (role !== 'user' && role !== 'assistant')
    return `message role ${String(role)} is not user or assistant`;
  if (
    typeof content !== 'object' ||
    content === null ||
    typeof (content as McpContentPart).type !== 'string'
  ) {
    return 'message has no content part';
  }
  return { role, content: content as McpContentPart };
}

/**
 * Renders a prompt for a model: one `role: text` line per message, media described, fenced as
 * untrusted data (a prompt is text the server wrote).
 */
export function promptText(server: string, name: string, prompt: McpPromptResult): string {
  const text = prompt.messages
    .map((message) => `${message.role}: ${describeContent(message.content)}`)
    .join('\n');
  return fenceUntrusted(`MCP prompt ${name} of server ${server}`, `${server}\n${name}`, text);
}
