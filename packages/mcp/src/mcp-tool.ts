import type { Permission, Tool, ToolOutput, ToolRunContext } from '@mh/core';
import { ajvToolSchema } from './ajv-tool-schema.js';
import { describeContent } from './describe-content.js';
import type { McpCallOptions, McpCallResult, McpToolInfo } from './mcp-connection.js';
import { wrapUntrusted } from './untrusted-output.js';

/** The part of `McpClient` a registered tool calls. */
export interface McpToolCaller {
  /** The server's configured name. */
  readonly name: string;
  /** Calls one tool. */
  callTool(name: string, args: unknown, options?: McpCallOptions): Promise<McpCallResult>;
}

/** A registered tool and the state its registration may change later. */
export interface McpToolHandle {
  /** The ordinary tool. */
  readonly tool: Tool;
  /** Set when the server stopped offering the tool but the registry cannot remove it. */
  retired: boolean;
}

/**
 * Makes the ordinary `Tool` for one server tool. Throws when its input schema does not compile
 * (the caller drops that tool only).
 */
export function mcpTool(
  client: McpToolCaller,
  info: McpToolInfo,
  name: string,
  permission: Permission,
  timeoutMs: number | undefined,
): McpToolHandle {
  const handle: { tool?: Tool; retired: boolean } = { retired: false };
  const tool: Tool = {
    name,
    description: info.description || `${info.name} (MCP server ${client.name})`,
    schema: ajvToolSchema(info.inputSchema),
    permission,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    // Said either way: the server's hints are untrusted, so a tool it does not vouch for as both
    // read-only and idempotent must never be run twice (an agent would otherwise repeat a read).
    idempotent: info.annotations?.idempotentHint === true && permission === 'read',
    async run(input: unknown, context: ToolRunContext): Promise<ToolOutput> {
      if (handle.retired) {
        return {
          content: [
            { type: 'text', text: `MCP server ${client.name} no longer offers ${info.name}` },
          ],
          isError: true,
        };
      }
      const result = await client.callTool(info.name, input, {
        signal: context.signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return toolOutput(name, context.callId, result);
    },
  };
  handle.tool = tool;
  return handle as McpToolHandle;
}

/** Converts a `tools/call` result into what the model sees: described media, wrapped as untrusted. */
export function toolOutput(toolName: string, callId: string, result: McpCallResult): ToolOutput {
  let text = result.content.map(describeContent).join('\n');
  if (result.content.length === 0 && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent, omitLongStrings);
  }
  return {
    content: [{ type: 'text', text: wrapUntrusted(toolName, callId, text) }],
    isError: result.isError,
  };
}

// Servers often duplicate base64 media into structuredContent; never inline it.
function omitLongStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > 4096
    ? `[${value.length} characters omitted]`
    : value;
}

/**
 * What must stay the same for a registered tool to be kept on refresh: its name, permission,
 * description, schema and annotations (canonical JSON, key order ignored).
 */
export function toolFingerprint(info: McpToolInfo, name: string, permission: Permission): string {
  return canonicalJson([
    name,
    permission,
    info.description,
    info.inputSchema,
    info.annotations ?? null,
  ]);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
