import {
  assertOptions,
  ConfigError,
  PERMISSIONS,
  type Permission,
  type Tool,
  type ToolOutput,
  type ToolRunContext,
} from '@mh/core';
import { ajvToolSchema } from './ajv-tool-schema.js';
import { describeContent } from './describe-content.js';
import type { McpCallOptions, McpCallResult, McpToolInfo } from './mcp-connection.js';
import { mcpPermission, type PermissionFor } from './mcp-permission.js';
import { assignToolNames } from './tool-name.js';
import { wrapUntrusted } from './untrusted-output.js';

/** Anything tools can be registered into, such as `@mh/tools`' `ToolRegistry`. */
export interface ToolSink {
  /** Adds one tool; may throw when the name is taken. */
  register(tool: Tool): unknown;
}

/** The part of `McpClient` that registration needs. */
export interface McpToolSource {
  /** The server's configured name. */
  readonly name: string;
  /** Lists the server's tools. */
  listTools(): Promise<readonly McpToolInfo[]>;
  /** Calls one tool. */
  callTool(name: string, args: unknown, options?: McpCallOptions): Promise<McpCallResult>;
}

/** Which server tools become agent tools, and with what permission. */
export interface RegisterMcpToolsOptions {
  /**
   * Only these tools are registered (by server name `read_file` or registered name
   * `fs__read_file`); all when absent. Unlisted tools are never shown to the model.
   */
  readonly allow?: readonly string[];
  /** Pins permissions; called with the registered name and the server's annotations. */
  readonly permissionFor?: PermissionFor;
  /** Per-call limit in milliseconds, also the `Tool.timeoutMs`. */
  readonly timeoutMs?: number;
  /** Names already used by other tools, so ours get a hash suffix instead of colliding. */
  readonly takenNames?: readonly string[];
  /** Receives warnings (dropped tools). Default: `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
}

/** One registered tool. */
export interface RegisteredMcpTool {
  /** Its registered name, e.g. `fs__read_file`. */
  readonly name: string;
  /** The server's name for it. */
  readonly serverToolName: string;
  /** The permission it got. */
  readonly permission: Permission;
}

/** What `registerMcpTools` did. */
export interface RegisterMcpToolsResult {
  /** The tools registered, in registration order. */
  readonly registered: readonly RegisteredMcpTool[];
  /** Tools dropped because their schema would not compile, with the reason. */
  readonly dropped: readonly { readonly name: string; readonly reason: string }[];
}

const OPTION_KEYS = ['allow', 'permissionFor', 'timeoutMs', 'takenNames', 'onWarning'];

/**
 * Registers each tool of a connected MCP server as an ordinary `Tool` named `server__tool`:
 * `exec` unless the server claims `readOnlyHint` (and `permissionFor` does not pin otherwise),
 * arguments validated locally, results wrapped as untrusted text with media described.
 *
 * @example
 * ```ts
 * import { McpClient, registerMcpTools } from '@mh/mcp';
 * const client = new McpClient('fs', { command: 'mcp-server-filesystem', args: ['/data'] });
 * await client.connect();
 * const registered: Parameters<typeof registerMcpTools>[0] = { register: () => {} };
 * await registerMcpTools(registered, client, { allow: ['read_file'] });
 * ```
 */
export async function registerMcpTools(
  registry: ToolSink,
  client: McpToolSource,
  options: RegisterMcpToolsOptions = {},
): Promise<RegisterMcpToolsResult> {
  assertOptions(options, OPTION_KEYS, 'options');
  const warn = options.onWarning ?? ((message: string): void => void process.emitWarning(message));
  const listed = await client.listTools();
  const names = assignToolNames(
    client.name,
    listed.map((tool) => tool.name),
    new Set(options.takenNames ?? []),
  );
  const allow = options.allow === undefined ? undefined : new Set(options.allow);
  const registered: RegisteredMcpTool[] = [];
  const dropped: { name: string; reason: string }[] = [];
  for (const info of listed) {
    const name = names.get(info.name) ?? info.name;
    if (allow && !allow.has(info.name) && !allow.has(name)) continue;
    const permission = mcpPermission(name, info.annotations, options.permissionFor);
    if (!PERMISSIONS.includes(permission)) {
      throw new ConfigError('options.permissionFor', `returned ${String(permission)} for ${name}`);
    }
    let tool: Tool;
    try {
      tool = mcpTool(client, info, name, permission, options.timeoutMs);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      dropped.push({ name, reason });
      warn(`MCP server ${client.name}: dropped tool ${info.name}: invalid inputSchema: ${reason}`);
      continue;
    }
    registry.register(tool);
    registered.push({ name, serverToolName: info.name, permission });
  }
  return { registered, dropped };
}

function mcpTool(
  client: McpToolSource,
  info: McpToolInfo,
  name: string,
  permission: Permission,
  timeoutMs: number | undefined,
): Tool {
  return {
    name,
    description: info.description || `${info.name} (MCP server ${client.name})`,
    schema: ajvToolSchema(info.inputSchema),
    permission,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(info.annotations?.idempotentHint === true && permission === 'read'
      ? { idempotent: true }
      : {}),
    async run(input: unknown, context: ToolRunContext): Promise<ToolOutput> {
      const result = await client.callTool(info.name, input, {
        signal: context.signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return toolOutput(name, context.callId, result);
    },
  };
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
