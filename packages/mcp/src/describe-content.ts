import type { McpContentPart } from './mcp-connection.js';

/** Decoded size of base64 text, in bytes. */
export function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

function field(part: McpContentPart, name: string): string {
  const value = part[name];
  return typeof value === 'string' ? value : '';
}

/**
 * Turns one content part into text for the model: text passes through; images, audio and binary
 * resources are described (`[image: image/png, 12345 bytes]`), never inlined.
 */
export function describeContent(part: McpContentPart): string {
  switch (part.type) {
    case 'text':
      return field(part, 'text');
    case 'image':
    case 'audio':
      return `[${part.type}: ${field(part, 'mimeType') || 'unknown type'}, ${base64Bytes(field(part, 'data'))} bytes]`;
    case 'resource_link':
      return `[resource link: ${field(part, 'uri')}${part.name ? ` (${field(part, 'name')})` : ''}]`;
    case 'resource': {
      const resource = (part.resource ?? {}) as McpContentPart;
      if (typeof resource.text === 'string') return resource.text;
      const mime = field(resource, 'mimeType') || 'unknown type';
      return `[resource: ${field(resource, 'uri')}, ${mime}, ${base64Bytes(field(resource, 'blob'))} bytes]`;
    }
    default:
      return `[${part.type} content omitted]`;
  }
}
