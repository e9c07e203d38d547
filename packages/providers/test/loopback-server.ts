import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request the loopback server received. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The raw body text. */
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** Answers one request; `index` counts requests from 0. */
export type Handler = (
  request: RecordedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

/** A running loopback server. */
export interface Loopback {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Stops the server and destroys open connections (stalled streams included). */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 with a random port, for the vendor SDKs to talk to in tests.
 * Nothing leaves the machine.
 */
export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        body,
        json,
      };
      const index = requests.length;
      requests.push(request);
      Promise.resolve(handler(request, response, index)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes an SSE body (already in wire form) with status 200, optionally in timed pieces. */
export async function sendSse(
  response: ServerResponse,
  wire: string,
  options: { pieceDelayMs?: number } = {},
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!options.pieceDelayMs) {
    response.end(wire);
    return;
  }
  for (const piece of wire.split(/(?<=\n\n)/)) {
    response.write(piece);
    await new Promise((resolve) => setTimeout(resolve, options.pieceDelayMs));
  }
  response.end();
}

/** Writes a JSON error response with the given status and headers. */
export function sendJsonError(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
