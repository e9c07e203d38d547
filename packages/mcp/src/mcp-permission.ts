import type { Permission } from '@mh/core';
import type { McpToolAnnotations } from './mcp-connection.js';

/** Pins a tool's permission: return one to override the default, `undefined` to keep it. */
export type PermissionFor = (
  name: string,
  annotations: McpToolAnnotations | undefined,
) => Permission | undefined;

/**
 * A server tool's permission: the user's pin when `permissionFor` gives one, else `read` only when
 * the server says `readOnlyHint: true`, else `exec` (least privilege; annotations are untrusted).
 */
export function mcpPermission(
  name: string,
  annotations: McpToolAnnotations | undefined,
  permissionFor?: PermissionFor,
): Permission {
  const pinned = permissionFor?.(name, annotations);
  if (pinned !== undefined) return pinned;
  return annotations?.readOnlyHint === true ? 'read' : 'exec';
}
