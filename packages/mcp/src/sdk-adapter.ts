// The only file that imports the MCP library: everything else talks to `McpConnection`.

import { CancelledError, McpProtocolError, ToolTimeoutError } from '@mh/core';
import {
  Client,
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/client';
import type {
  McpCallOptions,
  McpCallResult,
  McpConnection,
  McpContentPart,
  McpToolPage,
} from './mcp-connection.js';
import { StdioProcess, type StdioProcessOptions } from './stdio-process.js';
import type { StdioServerParams } from './stdio-server-params.js';

/** Options of a stdio connection. */
export interface ConnectStdioOptions extends StdioProcessOptions {
  /** Limit for the handshake in milliseconds. Default 30 000. */
  readonly initTimeoutMs?: number;
}

/** The part of a stdio connection our client needs besides the protocol. */
export interface StdioConnection extends McpConnection {
  /** The server's process (pid, stderr tail, exit). */
  readonly process: StdioProcess;
}

const CLIENT_INFO = { name: 'mini-harness', version: '0.0.0' };

/** Accepts any result: tools are checked one by one, so one bad entry cannot fail the whole list. */
const anyResult: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mh',
    validate: (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'expected an object' }] },
  },
};

/** Adapts our `StdioProcess` to the library's `Transport` interface. */
class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Why the connection ended, when it was not closed by us. */
  failure: McpProtocolError | undefined;
  readonly #process: StdioProcess;

  constructor(process: StdioProcess) {
    this.#process = process;
  }

  async start(): Promise<void> {
    await this.#process.start({
      onMessage: (message) => this.onmessage?.(message as JSONRPCMessage),
      onClose: (error) => {
        this.failure = error;
        if (error) this.onerror?.(error);
        this.onclose?.();
      },
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#process.send(message);
  }

  close(): Promise<void> {
    return this.#process.close();
  }
}

/**
 * Starts the server described by `params`, performs the MCP handshake and returns the session.
 * Rejects with `McpProtocolError` (after the process is gone) when the server cannot be started,
 * dies, or answers with an unsupported protocol version.
 */
export async function connectStdio(
  server: string,
  params: StdioServerParams,
  options: ConnectStdioOptions = {},
): Promise<StdioConnection> {
  const process = new StdioProcess(server, params, options);
  const transport = new StdioProcessTransport(process);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // Always observed: an unobserved connection error must never reach the host as unhandled.
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout: options.initTimeoutMs ?? 30_000 });
  } catch (error) {
    await process.close().catch(() => {});
    throw toProtocolError(server, error, transport.failure);
  }
  return new SdkConnection(server, client, transport, process);
}

class SdkConnection implements StdioConnection {
  readonly process: StdioProcess;
  readonly #server: string;
  readonly #client: Client;
  readonly #transport: StdioProcessTransport;
  readonly #toolsChanged: (() => void)[] = [];

  constructor(
    server: string,
    client: Client,
    transport: StdioProcessTransport,
    process: StdioProcess,
  ) {
    this.#server = server;
    this.#client = client;
    this.#transport = transport;
    this.process = process;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      for (const listener of this.#toolsChanged) listener();
    });
  }

  async listToolsPage(cursor: string | undefined): Promise<McpToolPage> {
    const params = cursor === undefined ? {} : { cursor };
    const result = await this.#request({ method: 'tools/list', params }, {});
    const tools = Array.isArray(result.tools) ? result.tools : [];
    const next = result.nextCursor;
    return typeof next === 'string' ? { tools, nextCursor: next } : { tools };
  }

  async callTool(name: string, args: unknown, options: McpCallOptions): Promise<McpCallResult> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const result = await this.#request(
      { method: 'tools/call', params: { name, arguments: args ?? {} } },
      { signal: options.signal, timeout: timeoutMs },
      name,
    );
    const content = Array.isArray(result.content)
      ? result.content.filter(
          (part): part is McpContentPart =>
            typeof part === 'object' && part !== null && typeof part.type === 'string',
        )
      : [];
    return {
      content,
      isError: result.isError === true,
      ...(result.structuredContent === undefined
        ? {}
        : { structuredContent: result.structuredContent }),
    };
  }

  onToolsChanged(listener: () => void): void {
    this.#toolsChanged.push(listener);
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => {});
    await this.process.close();
  }

  async #request(
    request: { method: string; params: Record<string, unknown> },
    options: { signal?: AbortSignal; timeout?: number },
    toolName?: string,
  ): Promise<Record<string, unknown>> {
    const failure = this.#transport.failure;
    if (failure) throw failure;
    try {
      return await this.#client.request(request, anyResult, options);
    } catch (error) {
      if (options.signal?.aborted) throw new CancelledError('MCP call cancelled', { cause: error });
      if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
        throw new ToolTimeoutError(toolName ?? request.method, options.timeout ?? 0);
      }
      throw toProtocolError(this.#server, error, this.#transport.failure);
    }
  }
}

function toProtocolError(
  server: string,
  error: unknown,
  failure: McpProtocolError | undefined,
): McpProtocolError {
  if (failure) return failure;
  if (McpProtocolError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = ProtocolError.isInstance(error) ? Number(error.code) : undefined;
  return new McpProtocolError(server, message, {
    cause: error,
    ...(Number.isFinite(code) ? { code } : {}),
  });
}
