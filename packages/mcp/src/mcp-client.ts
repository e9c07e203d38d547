import { assertOptions, ConfigError, McpProtocolError } from '@mh/core';
import type {
  McpCallOptions,
  McpCallResult,
  McpToolAnnotations,
  McpToolInfo,
} from './mcp-connection.js';
import { connectStdio, type StdioConnection } from './sdk-adapter.js';
import type { StdioServerParams } from './stdio-server-params.js';

/** Options of an `McpClient`. */
export interface McpClientOptions {
  /** Limit for the handshake, in milliseconds. Default 30 000. */
  readonly initTimeoutMs?: number;
  /** Default per-call limit, in milliseconds. Default 60 000. */
  readonly callTimeoutMs?: number;
  /** Longest accepted line from the server, in bytes. Default 16 MiB. */
  readonly maxLineBytes?: number;
  /** Bytes of server stderr kept for error messages. Default 8 KiB. */
  readonly stderrTailBytes?: number;
  /** Grace period of each shutdown step (stdin EOF, SIGTERM), in milliseconds. Default 1000. */
  readonly killGraceMs?: number;
  /** At most this many `tools/list` pages are read. Default 64. */
  readonly maxPages?: number;
  /** Receives warnings (dropped tools, repeated cursors). Default: `process.emitWarning`. */
  readonly onWarning?: (message: string) => void;
}

const OPTION_KEYS = [
  'initTimeoutMs',
  'callTimeoutMs',
  'maxLineBytes',
  'stderrTailBytes',
  'killGraceMs',
  'maxPages',
  'onWarning',
];
const PARAM_KEYS = ['command', 'args', 'env', 'cwd'];

/**
 * A client of one MCP server started as a child process over stdio. Protocol failures, a crash or
 * an unsupported protocol version surface as `McpProtocolError` naming the server; once the
 * server is gone every pending and later call fails at once.
 *
 * @example
 * ```ts
 * import { McpClient } from '@mh/mcp';
 * const client = new McpClient('fs', { command: 'mcp-server-filesystem', args: ['/data'] });
 * await client.connect();
 * const tools = await client.listTools();
 * await client.close();
 * ```
 */
export class McpClient {
  /** The server's configured name; the prefix of its tools' names. */
  readonly name: string;
  /** How the server is started. */
  readonly params: StdioServerParams;
  readonly #options: McpClientOptions;
  #connection: StdioConnection | undefined;
  #closed = false;

  /** Describes (does not start) the server `name`. Throws `ConfigError` on bad arguments. */
  constructor(name: string, params: StdioServerParams, options: McpClientOptions = {}) {
    if (typeof name !== 'string' || name === '') throw new ConfigError('name', 'expected a name');
    assertOptions(params, PARAM_KEYS, 'params');
    if (typeof params.command !== 'string' || params.command === '') {
      throw new ConfigError('params.command', 'expected a command');
    }
    assertOptions(options, OPTION_KEYS, 'options');
    this.name = name;
    this.params = params;
    this.#options = options;
  }

  /** The server's pid (its process group id) while connected. */
  get pid(): number | undefined {
    return this.#connection?.process.pid;
  }

  /** The last bytes the server wrote to stderr. */
  get stderrTail(): string {
    return this.#connection?.process.stderrTail ?? '';
  }

  /** Stdout lines that were not JSON and were skipped. */
  get nonJsonLines(): number {
    return this.#connection?.process.nonJsonLines ?? 0;
  }

  /** Starts the server and performs the handshake. Rejects with `McpProtocolError`. */
  async connect(): Promise<void> {
    if (this.#connection) return;
    if (this.#closed) throw new McpProtocolError(this.name, 'client is closed');
    this.#connection = await connectStdio(this.name, this.params, this.#options);
  }

  /**
   * Lists every tool, following `nextCursor` until the last page, a repeated cursor or `maxPages`.
   * Entries without a name or an object `inputSchema` are dropped with a warning.
   */
  async listTools(): Promise<McpToolInfo[]> {
    const connection = this.#connected();
    const maxPages = this.#options.maxPages ?? 64;
    const seen = new Set<string>();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const result = await connection.listToolsPage(cursor);
      for (const entry of result.tools) {
        const tool = checkTool(entry);
        if (typeof tool === 'string') this.#warn(`dropped a tool: ${tool}`);
        else tools.push(tool);
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (seen.has(cursor)) {
        this.#warn(`tools/list repeated cursor ${JSON.stringify(cursor)}; stopped paging`);
        return tools;
      }
      seen.add(cursor);
    }
    this.#warn(`tools/list has more than ${maxPages} pages; stopped paging`);
    return tools;
  }

  /**
   * Calls a tool. A tool's own failure is a result with `isError`; rejects with `ToolTimeoutError`
   * on timeout, `CancelledError` on abort (both send `notifications/cancelled`) and
   * `McpProtocolError` when the server fails.
   */
  callTool(name: string, args: unknown, options: McpCallOptions = {}): Promise<McpCallResult> {
    return this.#connected().callTool(name, args, {
      ...options,
      timeoutMs: options.timeoutMs ?? this.#options.callTimeoutMs ?? 60_000,
    });
  }

  /** Calls `listener` when the server says its tool list changed. */
  onToolsChanged(listener: () => void): void {
    this.#connected().onToolsChanged(listener);
  }

  /** Ends the session and kills the server's process group; safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    if (connection) await connection.close();
  }

  #connected(): StdioConnection {
    if (!this.#connection) {
      throw new McpProtocolError(this.name, this.#closed ? 'client is closed' : 'not connected');
    }
    return this.#connection;
  }

  #warn(message: string): void {
    const text = `MCP server ${this.name}: ${message}`;
    if (this.#options.onWarning) this.#options.onWarning(text);
    else process.emitWarning(text);
  }
}

function checkTool(entry: unknown): McpToolInfo | string {
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
    ...(typeof annotations === 'object' && annotations !== null
      ? { annotations: annotations as McpToolAnnotations }
      : {}),
  };
}
