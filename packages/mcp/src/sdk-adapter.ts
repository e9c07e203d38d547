// The only file that imports the MCP library: everything else talks to `McpConnection`.

import { CancelledError, McpProtocolError, ToolTimeoutError } from '@mh/core';
import {
  Client,
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type StandardSchemaV1,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { HttpGuard } from './http-guard.js';
import type { HttpServerParams } from './http-server-params.js';
import type {
  McpConnection,
  McpElicitation,
  McpElicitResult,
  McpListChangedMethod,
  McpRequestOptions,
} from './mcp-connection.js';
import { type HttpSession, RenewingConnection } from './renewing-connection.js';
import { StdioProcess, type StdioProcessOptions } from './stdio-process.js';
import type { StdioServerParams } from './stdio-server-params.js';

/** Options of a connection. */
export interface ConnectOptions extends StdioProcessOptions {
  /** Limit for the handshake in milliseconds. Default 30 000. */
  readonly initTimeoutMs?: number;
  /**
   * Answers the server's `elicitation/create` requests (form mode); when given, the client
   * declares the elicitation capability. A URL-mode request is declined.
   */
  readonly elicit?: (request: McpElicitation) => Promise<McpElicitResult>;
}

/** The part of a stdio connection our client needs besides the protocol. */
export interface StdioConnection extends McpConnection {
  /** The server's process (pid, stderr tail, exit). */
  readonly process: StdioProcess;
}

const CLIENT_INFO = { name: 'mini-harness', version: '0.0.0' };
/** The library's reconnection schedule for resumable HTTP streams, made explicit. */
const RECONNECTION = {
  initialReconnectionDelay: 500,
  reconnectionDelayGrowFactor: 1.5,
  maxReconnectionDelay: 5000,
  maxRetries: 2,
};

/** Accepts any object result: entries are checked one by one, so one bad entry cannot fail a list. */
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
  options: ConnectOptions = {},
): Promise<StdioConnection> {
  const process = new StdioProcess(server, params, options);
  const transport = new StdioProcessTransport(process);
  const client = await handshake(
    server,
    transport,
    options,
    () => transport.failure,
    () => process.close().catch(() => {}),
  );
  const connection = new SdkConnection(
    server,
    client,
    () => transport.failure,
    async () => {
      await client.close().catch(() => {});
      await process.close();
    },
  );
  return Object.assign(connection, { process });
}

/**
 * Opens a streamable HTTP session with the server at `params.url`. Rejects with
 * `McpProtocolError` when it cannot be reached, answers with an HTTP error or a content type that
 * is not MCP, or with an unsupported protocol version. When the server later ends the session
 * (HTTP 404 to a request carrying its id), a new one is opened and the request sent once more.
 */
export async function connectHttp(
  server: string,
  params: HttpServerParams,
  options: ConnectOptions = {},
): Promise<McpConnection> {
  const open = (signal?: AbortSignal): Promise<HttpSession> =>
    openHttpSession(server, params, options, signal);
  return new RenewingConnection(server, await open(), open);
}

/** One session; `signal` abandons its handshake (the connection is closing). */
async function openHttpSession(
  server: string,
  params: HttpServerParams,
  options: ConnectOptions,
  signal?: AbortSignal,
): Promise<HttpSession> {
  if (signal?.aborted) throw new McpProtocolError(server, 'closed before a new session was opened');
  const guard = new HttpGuard({
    server,
    maxMessageBytes: options.maxLineBytes ?? 16 * 1024 * 1024,
    reconnection: RECONNECTION,
    onLost: (ids, problem) => {
      for (const id of ids) {
        transport.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32000, message: problem } });
      }
    },
  });
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(
    new URL(params.url),
    {
      fetch: guard.fetch,
      reconnectionOptions: RECONNECTION,
      ...(params.headers ? { requestInit: { headers: { ...params.headers } } } : {}),
    },
  );
  // Set before connecting: the library chains handlers that are already there.
  transport.onmessage = (message) => guard.observe(message);
  let ended = false;
  let onEnded: (() => void) | undefined;
  // The library reports a GET stream refused with 404 (the standalone stream or a resumption, on
  // any attempt) only through onerror, as this error, and keeps using the session.
  transport.onerror = (error) => {
    const refused =
      SdkHttpError.isInstance(error) &&
      error.status === 404 &&
      error.code === SdkErrorCode.ClientHttpFailedToOpenStream;
    if (!refused || ended || transport.sessionId === undefined) return;
    ended = true;
    if (onEnded) queueMicrotask(onEnded);
  };
  const shutdown = async (): Promise<void> => {
    guard.close();
    await transport.close().catch(() => {});
  };
  // Closing the transport fails the pending initialize at once, and the handshake cleans up.
  const abandonHandshake = (): void => void shutdown();
  signal?.addEventListener('abort', abandonHandshake, { once: true });
  let client: Client;
  try {
    client = await handshake(server, transport, options, () => undefined, shutdown);
  } finally {
    signal?.removeEventListener('abort', abandonHandshake);
  }
  const sessionId = transport.sessionId;
  const connection = new SdkConnection(
    server,
    client,
    () => undefined,
    async () => {
      // Ending the session politely must not hang on a server that stopped answering.
      await settlesWithin(transport.terminateSession(), options.killGraceMs ?? 1000);
      await client.close().catch(() => {});
      await shutdown();
    },
  );
  return Object.assign(connection, {
    // The library reports the status of the POST itself as this error; a response stream that
    // broke later reaches us through the guard, as a JSON-RPC error instead.
    isExpired: (error: unknown): boolean => {
      const cause = McpProtocolError.isInstance(error) ? error.cause : undefined;
      return (
        sessionId !== undefined &&
        SdkHttpError.isInstance(cause) &&
        cause.status === 404 &&
        cause.code === SdkErrorCode.ClientHttpNotImplemented
      );
    },
    onEnded: (listener: () => void): void => {
      onEnded = listener;
      if (ended) queueMicrotask(listener);
    },
    abandon: async (): Promise<void> => {
      await client.close().catch(() => {});
      await shutdown();
    },
  });
}

async function handshake(
  server: string,
  transport: Transport,
  options: ConnectOptions,
  failure: () => McpProtocolError | undefined,
  cleanUp: () => Promise<unknown>,
): Promise<Client> {
  const { elicit } = options;
  const client = new Client(CLIENT_INFO, {
    capabilities: elicit ? { elicitation: { form: {} } } : {},
  });
  // Always observed: an unobserved connection error must never reach the host as unhandled.
  client.onerror = () => {};
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Record<string, unknown>;
      if (params.mode === 'url' || typeof params.message !== 'string')
        return { action: 'decline' as const };
      const schema = params.requestedSchema;
      const asked: McpElicitation =
        schema !== null && typeof schema === 'object' && !Array.isArray(schema)
          ? { message: params.message, requestedSchema: schema as Record<string, unknown> }
          : { message: params.message };
      return (await elicit(asked)) as never;
    });
  }
  const timeout = options.initTimeoutMs ?? 30_000;
  try {
    await client.connect(transport, { timeout });
  } catch (error) {
    await client.close().catch(() => {});
    await cleanUp();
    if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
      throw new McpProtocolError(server, `no answer to initialize within ${timeout} ms`, {
        cause: error,
      });
    }
    throw toProtocolError(server, error, failure());
  }
  return client;
}

class SdkConnection implements McpConnection {
  readonly #server: string;
  readonly #client: Client;
  readonly #failure: () => McpProtocolError | undefined;
  readonly #close: () => Promise<void>;
  readonly #listeners = new Map<string, (() => void)[]>();

  constructor(
    server: string,
    client: Client,
    failure: () => McpProtocolError | undefined,
    close: () => Promise<void>,
  ) {
    this.#server = server;
    this.#client = client;
    this.#failure = failure;
    this.#close = close;
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const failed = this.#failure();
    if (failed) throw failed;
    const timeout = options.timeoutMs ?? 60_000;
    try {
      return await this.#client.request({ method, params }, anyResult, {
        timeout,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw new CancelledError('MCP call cancelled', { cause: error });
      if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
        throw new ToolTimeoutError(options.label ?? method, timeout);
      }
      throw toProtocolError(this.#server, error, this.#failure());
    }
  }

  onNotification(method: McpListChangedMethod, listener: () => void): void {
    const listeners = this.#listeners.get(method);
    if (listeners) {
      listeners.push(listener);
      return;
    }
    this.#listeners.set(method, [listener]);
    this.#client.setNotificationHandler(method, () => {
      for (const each of this.#listeners.get(method) ?? []) each();
    });
  }

  async close(): Promise<void> {
    await this.#close();
  }
}

function toProtocolError(
  server: string,
  error: unknown,
  failure: McpProtocolError | undefined,
): McpProtocolError {
  if (failure) return failure;
  if (McpProtocolError.isInstance(error)) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (McpProtocolError.isInstance(cause)) return cause;
  if (SdkHttpError.isInstance(error)) {
    const text = typeof error.data.text === 'string' ? error.data.text.trim().slice(0, 200) : '';
    const status = `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''}`;
    return new McpProtocolError(server, `${status}${text ? `: ${text}` : ''}`, { cause: error });
  }
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    const type = (error.data as { contentType?: unknown } | undefined)?.contentType;
    return new McpProtocolError(
      server,
      `answered with content type ${String(type)}, not application/json or text/event-stream`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = ProtocolError.isInstance(error) ? Number(error.code) : undefined;
  return new McpProtocolError(server, message, {
    cause: error,
    ...(Number.isFinite(code) ? { code } : {}),
  });
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
