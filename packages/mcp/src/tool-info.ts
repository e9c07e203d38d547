import type {
  McpCallResult,
  McpContentPart,
  McpToolAnnotations,
  McpToolInfo,
} from './mcp-connection.js';

/** Checks one `tools/list` entry: the tool, or why it is dropped (no name, no object schema). */
export function parseToolInfo(entry: unknown): McpToolInfo | string {
  if (typeof entry !== 'object' || entry === null) return 'entry is not an object';
  const record = entry as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== 'string' || name === '') return 'entry has no name';
  const schema = record.inputSchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `${name}: inputSchema is not an object`;
  }
  if ((schema as Record<string, unknown>).type !== 'object') {
    return `${name}: inputSchema.type is not "object"`;
  }
  const description = typeof record.description === 'string' ? record.description : '';
  const annotations = record.annotations;
  return {
    name,
    description,
    inputSchema: schema as Record<string, unknown>,
    ...(typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations)
      ? { annotations: annotations as McpToolAnnotations }
      : {}),
  };
}

/** Keeps the content parts that have a string `type`; anything else a server sends is dropped. */
export function parseContentParts(value: unknown): McpContentPart[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (part): part is McpContentPart =>
      typeof part === 'object' && part !== null && typeof part.type === 'string',
  );
}

/** Shapes a raw `tools/call` result (untrusted): content parts, `isError`, `structuredContent`. */
export function parseCallResult(result: Record<string, unknown>): McpCallResult {
  return {
    content: parseContentParts(result.content),
    isError: result.isError === true,
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: result.structuredContent }),
  };
}
