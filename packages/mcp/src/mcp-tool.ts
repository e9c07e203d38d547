import type { Permission, Tool, ToolOutput, ToolRunContext } from '@mh/core';
import { ajvToolSchema } from './ajv-tool-schema.js';
import { describeContent } from './describe-content.js';
import type {
  McpCallOptions,
  McpCallResult,
  McpElicitation,
  McpElicitResult,
  McpToolInfo,
} from './mcp-connection.js';
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
      const asking = elicitationOf(context);
      try {
        const result = await client.callTool(info.name, input, {
          signal: asking.signal,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(asking.onElicitation ? { onElicitation: asking.onElicitation } : {}),
        });
        asking.rethrow();
        return toolOutput(name, context.callId, result);
      } catch (error) {
        asking.rethrow();
        throw error;
      } finally {
        asking.dispose();
      }
    },
  };
  handle.tool = tool;
  return handle as McpToolHandle;
}

/**
 * A call's answer to the server's elicitations: each becomes `context.interrupt(message)` with the
 * requested schema. Answered (on a resume), the answer is accepted as the content; without an
 * answer, the elicitation is cancelled, the call aborted, and `rethrow` throws the
 * `ToolInterrupt` so the call ends interrupted (it is sent again on resume).
 */
function elicitationOf(context: ToolRunContext): {
  readonly signal: AbortSignal;
  readonly onElicitation?: (request: McpElicitation) => Promise<McpElicitResult>;
  rethrow(): void;
  dispose(): void;
} {
  const controller = new AbortController();
  const forward = (): void => controller.abort(context.signal.reason);
  if (context.signal.aborted) forward();
  else context.signal.addEventListener('abort', forward, { once: true });
  let stopped: { readonly error: unknown } | undefined;
  const ask = context.interrupt;
  const onElicitation = async (request: McpElicitation): Promise<McpElicitResult> => {
    if (!ask || stopped) return { action: 'decline' };
    try {
      const answer = await ask({
        question: request.message.trim() === '' ? '(the server asks for input)' : request.message,
        ...(request.requestedSchema ? { schema: request.requestedSchema } : {}),
      });
      if (answer !== null && typeof answer === 'object' && !Array.isArray(answer))
        return { action: 'accept', content: answer as Record<string, unknown> };
      return { action: 'decline' };
    } catch (error) {
      stopped = { error };
      // Answered first, so the server is not left waiting; then the call itself is dropped.
      setImmediate(() => controller.abort(error));
      return { action: 'cancel' };
    }
  };
  return {
    signal: controller.signal,
    ...(ask ? { onElicitation } : {}),
    rethrow: () => {
      if (stopped) throw stopped.error;
    },
    dispose: () => context.signal.removeEventListener('abort', forward),
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
