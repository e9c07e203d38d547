import { describeContent } from './describe-content.js';
import { fenceUntrusted } from './untrusted-output.js';

/** A resource as listed by a server (untrusted text). */
export interface McpResourceInfo {
  /** Its URI, used to read it. */
  readonly uri: string;
  /** Its name ('' when absent). */
  readonly name: string;
  /** Its description ('' when absent). */
  readonly description: string;
  /** Its MIME type, when the server says. */
  readonly mimeType?: string;
}

/** One item of a `resources/read` result: text, or base64 `blob` for binary data. */
export interface McpResourceContent {
  /** The URI of this item. */
  readonly uri: string;
  /** Its MIME type, when the server says. */
  readonly mimeType?: string;
  /** The text, for a text resource. */
  readonly text?: string;
  /** Base64 data, for a binary resource. */
  readonly blob?: string;
}

/** Checks one `resources/list` entry: the resource, or why it is dropped. */
export function parseResourceInfo(entry: unknown): McpResourceInfo | string {
  if (typeof entry !== 'object' || entry === null) return 'entry is not an object';
  const record = entry as Record<string, unknown>;
  if (typeof record.uri !== 'string' || record.uri === '') return 'entry has no uri';
  return {
    uri: record.uri,
    name: typeof record.name === 'string' ? record.name : '',
    description: typeof record.description === 'string' ? record.description : '',
    ...(typeof record.mimeType === 'string' ? { mimeType: record.mimeType } : {}),
  };
}

/** Checks one item of a `resources/read` result: the item, or why it is dropped. */
export function parseResourceContent(entry: unknown): McpResourceContent | string {
  if (typeof entry !== 'object' || entry === null) return 'item is not an object';
  const record = entry as Record<string, unknown>;
  if (typeof record.uri !== 'string') return 'item has no uri';
  const text = typeof record.text === 'string' ? record.text : undefined;
  const blob = typeof record.blob === 'string' ? record.blob : undefined;
  if (text === undefined && blob === undefined) return `${record.uri}: neither text nor blob`;
  return {
    uri: record.uri,
    ...(typeof record.mimeType === 'string' ? { mimeType: record.mimeType } : {}),
    ...(text === undefined ? {} : { text }),
    ...(blob === undefined ? {} : { blob }),
  };
}

/**
 * Renders what `readResource` returned for a model: text items as they are, binary items
 * described (`[resource: uri, image/png, 5300 bytes]`), all fenced as untrusted data.
 */
export function resourceText(
  server: string,
  uri: string,
  contents: readonly McpResourceContent[],
): string {
  const text = contents
    .map((item) => describeContent({ type: 'resource', resource: item }))
    .join('\n');
  return fenceUntrusted(`MCP resource ${uri} of server ${server}`, `${server}\n${uri}`, text);
}
