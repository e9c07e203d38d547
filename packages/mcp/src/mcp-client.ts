import { ConfigError, McpProtocolError } from '@mh/core';
import {
  checkName,
  checkOptions,
  checkParams,
  type McpClientOptions,
  type McpServerParams,
} from './client-input.js';
import { collectPages, type McpPage } from './list-pages.js';
import type {
  McpCallOptions,
  McpCallResult,
  McpConnection,
  McpElicitation,
  McpElicitResult,
  McpRequestOptions,
  McpToolInfo,
} from './mcp-connection.js';
import {
  type McpPromptInfo,
  type McpPromptResult,
  parsePromptInfo,
  parsePromptMessage,
} from './mcp-prompts.js';
import {
  type McpResourceContent,
  type McpResourceInfo,
  parseResourceContent,
  parseResourceInfo,
} from './mcp-resources.js';
import { connectHttp, connectStdio, type StdioConnection } from './sdk-adapter.js';
import { parseCallResult, parseToolInfo } from './tool-info.js';

/**
 * A client of one MCP server: a child process over stdio (`{ command, args }`) or a streamable
 * HTTP endpoint (`{ url }`). Protocol failures, a crash, an unreachable server or an unsupported
 * protocol version surface as `McpProtocolError` naming the server; a server that dies fails
 * every pending call at once. Everything a server returns is untrusted: entries are shape-checked
 * one by one and malformed ones dropped with a warning.
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
  /** How the server is reached. */
  readonly params: McpServerParams;
  readonly #options: McpClientOptions;
  #connection: McpConnection | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  /** The elicitation handlers of the calls in flight (`McpCallOptions.onElicitation`). */
  readonly #elicitors = new Set<(request: McpElicitation) => Promise<McpElicitResult>>();

  /** Describes (does not start or contact) the server `name`. Throws `ConfigError` on bad input. */
  constructor(name: string, params: McpServerParams, options: McpClientOptions = {}) {
    checkName(name);
    checkParams(params);
    checkOptions(options);
    this.name = name;
    this.params = params;
    this.#options = options;
  }

  /** `http` for a URL, `stdio` for a command. */
  get transport(): 'stdio' | 'http' {
    return 'url' in this.params ? 'http' : 'stdio';
  }

  /** The server's pid (its process group id) while connected over stdio. */
  get pid(): number | undefined {
    return this.#stdio()?.process.pid;
  }

  /** The last bytes the server wrote to stderr (stdio). */
  get stderrTail(): string {
    return this.#stdio()?.process.stderrTail ?? '';
  }

  /** Stdout lines that were not JSON and were skipped (stdio). */
  get nonJsonLines(): number {
    return this.#stdio()?.process.nonJsonLines ?? 0;
  }

  /** Starts or reaches the server and performs the handshake. Rejects with `McpProtocolError`. */
  async connect(): Promise<void> {
    if (this.#connection) return;
    if (this.#closed) throw new McpProtocolError(this.name, 'client is closed');
    this.#connecting ??= (async () => {
      const params = this.params;
      const options =
        this.#options.elicitation === 'interrupt'
          ? { ...this.#options, elicit: (request: McpElicitation) => this.#elicit(request) }
          : this.#options;
      this.#connection =
        'url' in params
          ? await connectHttp(this.name, params, options)
          : await connectStdio(this.name, params, options);
    })().finally(() => {
      this.#connecting = undefined;
    });
    await this.#connecting;
  }

  /** Lists every tool (all pages); entries without a name or an object `inputSchema` are dropped. */
  listTools(): Promise<McpToolInfo[]> {
    return this.#collect('tools/list', 'tools', parseToolInfo);
  }

  /**
   * Calls a tool. A tool's own failure is a result with `isError`; rejects with `ToolTimeoutError`
   * on timeout, `CancelledError` on abort (both send `notifications/cancelled`) and
   * `McpProtocolError` when the server fails.
   */
  async callTool(
    name: string,
    args: unknown,
    options: McpCallOptions = {},
  ): Promise<McpCallResult> {
    if (typeof name !== 'string' || name === '')
      throw new ConfigError('name', 'expected a tool name');
    const params = { name, arguments: args ?? {} };
    const { onElicitation, ...request } = options;
    if (onElicitation) this.#elicitors.add(onElicitation);
    try {
      const result = await this.#request('tools/call', params, { ...request, label: name });
      return parseCallResult(result);
    } finally {
      if (onElicitation) this.#elicitors.delete(onElicitation);
    }
  }

  /** Routes an elicitation to the one call in flight that answers them; declines otherwise. */
  async #elicit(request: McpElicitation): Promise<McpElicitResult> {
    const [only, ...others] = this.#elicitors;
    if (only === undefined || others.length > 0) {
      this.#warn(
        `declined an elicitation of ${this.name}: ${only === undefined ? 'no' : 'more than one'} call in flight to answer it`,
      );
      return { action: 'decline' };
    }
    return await only(request);
  }

  /** Lists every resource (all pages); entries without a URI are dropped. */
  listResources(): Promise<McpResourceInfo[]> {
    return this.#collect('resources/list', 'resources', parseResourceInfo);
  }

  /**
   * Reads a resource: its text and binary items (malformed ones dropped). Treat the result as
   * untrusted; `resourceText` renders it fenced for a model.
   */
  async readResource(uri: string, options: McpCallOptions = {}): Promise<McpResourceContent[]> {
    if (typeof uri !== 'string' || uri === '') throw new ConfigError('uri', 'expected a URI');
    const result = await this.#request('resources/read', { uri }, options);
    return this.#checked(`resources/read ${uri}`, result.contents, parseResourceContent);
  }

  /** Lists every prompt (all pages); entries without a name are dropped. */
  listPrompts(): Promise<McpPromptInfo[]> {
    return this.#collect('prompts/list', 'prompts', parsePromptInfo);
  }

  /**
   * Gets a prompt filled in with `args` (string values). Treat it as untrusted text the server
   * wrote; `promptText` renders it fenced for a model.
   */
  async getPrompt(
    name: string,
    args: Readonly<Record<string, string>> = {},
    options: McpCallOptions = {},
  ): Promise<McpPromptResult> {
    if (typeof name !== 'string' || name === '')
      throw new ConfigError('name', 'expected a prompt name');
    for (const [key, value] of Object.entries(args ?? {})) {
      if (typeof value !== 'string') throw new ConfigError(`args.${key}`, 'expected a string');
    }
    const result = await this.#request('prompts/get', { name, arguments: args }, options);
    return {
      description: typeof result.description === 'string' ? result.description : '',
      messages: this.#checked(`prompts/get ${name}`, result.messages, parsePromptMessage),
    };
  }

  /** Calls `listener` when the server says its tool list changed. */
  onToolsChanged(listener: () => void): void {
    this.#connected().onNotification('notifications/tools/list_changed', listener);
  }

  /** Ends the session and, for stdio, kills the server's process group; safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting?.catch(() => {});
    const connection = this.#connection;
    if (connection) await connection.close();
  }

  #request(
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    return this.#connected().request(method, params, {
      ...options,
      timeoutMs: options.timeoutMs ?? this.#options.callTimeoutMs ?? 60_000,
    });
  }

  #collect<T>(method: string, key: string, check: (entry: unknown) => T | string): Promise<T[]> {
    const fetchPage = async (cursor: string | undefined): Promise<McpPage> => {
      const result = await this.#request(method, cursor === undefined ? {} : { cursor }, {});
      const items = Array.isArray(result[key]) ? (result[key] as unknown[]) : [];
      const next = result.nextCursor;
      return typeof next === 'string' ? { items, nextCursor: next } : { items };
    };
    return collectPages(method, fetchPage, check, this.#options.maxPages ?? 64, (message) =>
      this.#warn(message),
    );
  }

  #checked<T>(what: string, value: unknown, check: (entry: unknown) => T | string): T[] {
    const items: T[] = [];
    for (const entry of Array.isArray(value) ? value : []) {
      const item = check(entry);
      if (typeof item === 'string') this.#warn(`${what}: dropped an entry: ${item}`);
      else items.push(item);
    }
    return items;
  }

  #connected(): McpConnection {
    if (!this.#connection) {
      throw new McpProtocolError(this.name, this.#closed ? 'client is closed' : 'not connected');
    }
    return this.#connection;
  }

  #stdio(): StdioConnection | undefined {
    const connection = this.#connection as StdioConnection | undefined;
    return connection && 'process' in connection ? connection : undefined;
  }

  #warn(message: string): void {
    const text = `MCP server ${this.name}: ${message}`;
    if (this.#options.onWarning) this.#options.onWarning(text);
    else process.emitWarning(text);
  }
}
