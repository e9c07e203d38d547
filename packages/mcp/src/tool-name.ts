import { createHash } from 'node:crypto';

/** Longest tool name providers accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_`. */
export function sanitizeNamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** 8 hex digits of SHA-1 over `server/tool`: stable across runs and machines. */
export function nameHash(server: string, tool: string): string {
  return createHash('sha1').update(`${server}/${tool}`).digest('hex').slice(0, 8);
}

/** `server__tool`, truncated with `_` + hash so it fits in 64 characters. */
export function hashedToolName(server: string, tool: string): string {
  const base = `${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  return `${base.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${nameHash(server, tool)}`;
}

/**
 * The registered name of a server's tool: `server__tool`, each part sanitised to
 * `[a-zA-Z0-9_-]`; a name over 64 characters is truncated and gets a stable hash suffix.
 */
export function mcpToolName(server: string, tool: string): string {
  const base = `${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  return base.length <= MAX_TOOL_NAME_LENGTH ? base : hashedToolName(server, tool);
}

/**
 * Names every tool of one server, keyed by original name. Tools are named in sorted order so the
 * result does not depend on listing order; a name already taken (by `taken` or an earlier tool of
 * this server after sanitising) gets the hash suffix.
 */
export function assignToolNames(
  server: string,
  tools: readonly string[],
  taken: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const used = new Set(taken);
  const names = new Map<string, string>();
  for (const tool of [...tools].sort()) {
    let name = mcpToolName(server, tool);
    if (used.has(name)) name = hashedToolName(server, tool);
    used.add(name);
    names.set(tool, name);
  }
  return names;
}
