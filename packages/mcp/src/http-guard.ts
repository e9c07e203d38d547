import { McpProtocolError } from '@mh/core';
import { type JsonRpcId, NO_IDS, networkProblem, outgoingIds } from './http-requests.js';
import { SseLineScanner } from './sse-line-scanner.js';

export type { JsonRpcId } from './http-requests.js';

/** The fetch signature the MCP library's HTTP transport accepts. */
export type FetchFunction = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Options of an `HttpGuard`. */
export interface HttpGuardOptions {
  /** The server's configured name, for errors. */
  readonly server: string;
  /** Largest JSON body and longest SSE line accepted, in bytes. */
  readonly maxMessageBytes: number;
  /**
   * The library's reconnection schedule for a resumable stream that broke: a request on it waits
   * for each resumption attempt (GET with `Last-Event-ID`) and fails when none is left.
   */
  readonly reconnection: {
    readonly initialReconnectionDelay: number;
    readonly reconnectionDelayGrowFactor: number;
    readonly maxReconnectionDelay: number;
    readonly maxRetries: number;
  };
  /** Called for requests whose response can no longer arrive, with why; the caller fails them. */
  readonly onLost: (ids: readonly JsonRpcId[], problem: string) => void;
  /** The underlying fetch. Default: the global one. */
  readonly fetch?: FetchFunction;
}

/**
 * Time left for bytes already read to be parsed and delivered after a stream ends, in ms. The
 * library's stream pipeline runs on promises, so everything read is delivered before any timer
 * fires; the margin only covers a busy event loop.
 */
const DELIVERY_GRACE_MS = 20;
/**
 * Why a lost request is never sent again: the server accepted it (its response stream had begun),
 * so it may have run.
 */
const UNKNOWN = 'outcome unknown, the server had accepted the request (not retried)';
/** Time allowed for a resumption attempt to reach us after its scheduled delay, in ms. */
const RESUME_MARGIN_MS = 2000;

/**
 * Sits between the MCP library's streamable HTTP transport and `fetch`. The library leaves a
 * request pending forever when the response stream of its POST breaks (a crashed server), has no
 * size cap, reports an unreachable server as a bare `fetch failed`, and keeps a cancelled
 * request's POST open. The guard caps every body (a JSON body, or each SSE line, at
 * `maxMessageBytes`), reports the requests whose stream ended without their response (after the
 * library's resumption window when the stream was resumable), aborts a request's POST once it is
 * cancelled, and turns network failures into `McpProtocolError`.
 */
export class HttpGuard {
  /** The fetch to hand to the transport. */
  readonly fetch: FetchFunction;
  readonly #options: HttpGuardOptions;
  readonly #base: FetchFunction;
  readonly #inFlight = new Map<JsonRpcId, AbortController>();
  /** Requests whose resumable stream broke, by the last event id seen on it. */
  readonly #awaitingResume = new Map<
    string,
    { ids: JsonRpcId[]; timer: NodeJS.Timeout; attempt: number }
  >();
  /** Resumption attempts already made per last event id. */
  readonly #attempts = new Map<string, number>();
  /** The server's reconnection delay (`retry:`), which the library prefers over its backoff. */
  #serverRetryMs: number | undefined;
  #closed = false;

  constructor(options: HttpGuardOptions) {
    this.#options = options;
    this.#base = options.fetch ?? ((url, init) => fetch(url, init));
    this.fetch = (url, init) => this.#fetch(url, init);
  }

  /** Records a message received from the server (responses settle their request). */
  observe(message: unknown): void {
    if (typeof message !== 'object' || message === null || 'method' in message) return;
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') this.#inFlight.delete(id);
  }

  /** Stops reporting: the connection is closed, pending requests were failed by the library. */
  close(): void {
    this.#closed = true;
    for (const { timer } of this.#awaitingResume.values()) clearTimeout(timer);
    this.#awaitingResume.clear();
    this.#inFlight.clear();
  }

  async #fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const method = (init.method ?? 'GET').toUpperCase();
    const { requests, cancelled } = method === 'POST' ? outgoingIds(init.body) : NO_IDS;
    for (const id of cancelled) this.#cancel(id);
    const lastEventId =
      method === 'GET' ? (new Headers(init.headers).get('last-event-id') ?? undefined) : undefined;
    const resumed = lastEventId === undefined ? [] : this.#resume(lastEventId);
    const attempt = lastEventId === undefined ? 0 : (this.#attempts.get(lastEventId) ?? 0) + 1;
    const tracked = [...requests, ...resumed];
    const controller = new AbortController();
    const signal = init.signal
      ? AbortSignal.any([init.signal, controller.signal])
      : controller.signal;
    for (const id of tracked) this.#inFlight.set(id, controller);
    let response: Response;
    try {
      response = await this.#base(url, { ...init, signal });
    } catch (error) {
      for (const id of requests) this.#inFlight.delete(id);
      if (signal.aborted) throw error;
      const problem = networkProblem(url, error);
      // A failed POST rejects its requests in the library; a failed resumption is retried by it.
      if (lastEventId !== undefined) this.#awaitResume(resumed, lastEventId, problem, attempt);
      throw this.#error(problem, error);
    }
    if (response.ok && lastEventId !== undefined) this.#attempts.delete(lastEventId);
    // The library rejects a refused POST's requests itself, with the HTTP error.
    if (!response.ok) for (const id of requests) this.#inFlight.delete(id);
    if (response.status === 404 && lastEventId !== undefined) {
      // The server ended the session: no resumption attempt can succeed.
      this.#attempts.delete(lastEventId);
      this.#lost(
        resumed,
        `the server ended the session (HTTP 404) before the response; ${UNKNOWN}`,
        0,
      );
    } else if (!response.ok && lastEventId !== undefined) {
      this.#awaitResume(resumed, lastEventId, `HTTP ${response.status}`, attempt);
    }
    // A status that cannot carry a body (204, 304…) cannot be rebuilt around a guarded one.
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) {
      this.#ended(tracked, response, undefined, undefined);
      return response;
    }
    return new Response(this.#guardBody(url, response, tracked), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  #guardBody(url: string | URL, response: Response, tracked: JsonRpcId[]): ReadableStream {
    const body = response.body as ReadableStream<Uint8Array>;
    const reader = body.getReader();
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const scanner = sse ? new SseLineScanner(this.#options.maxMessageBytes) : undefined;
    const max = this.#options.maxMessageBytes;
    let total = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.#ended(tracked, response, scanner, `stream broke (${reason})`);
          controller.error(error);
          return;
        }
        if (chunk.done) {
          this.#ended(tracked, response, scanner, 'stream ended');
          controller.close();
          return;
        }
        total += chunk.value.byteLength;
        const tooLong = scanner ? !scanner.push(chunk.value) : total > max;
        if (tooLong) {
          const mib = (max / 1024 / 1024).toFixed(0);
          const what = scanner ? 'an event line' : 'a response';
          const problem = `sent ${what} longer than ${mib} MiB (${String(url)})`;
          const failure = this.#error(problem);
          this.#lost(tracked, problem, 0);
          void reader.cancel(failure).catch(() => {});
          controller.error(failure);
          return;
        }
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  /** A stream carrying `tracked` requests is over: fail those it did not answer. */
  #ended(
    tracked: JsonRpcId[],
    response: Response,
    scanner: SseLineScanner | undefined,
    how: string | undefined,
  ): void {
    if (scanner?.retryMs !== undefined) this.#serverRetryMs = scanner.retryMs;
    // Requests answered or cancelled meanwhile need nothing more.
    const open = tracked.filter((id) => this.#inFlight.has(id));
    if (open.length === 0 || response.status === 202) return;
    if (!response.ok) return; // the library rejects the request with the HTTP error itself
    const lastEventId = scanner?.lastEventId;
    if (lastEventId !== undefined) {
      this.#awaitResume(open, lastEventId, how ?? 'stream ended', 0);
      return;
    }
    this.#lost(
      open,
      `connection lost before the response: ${how ?? 'empty body'}; ${UNKNOWN}`,
      DELIVERY_GRACE_MS,
    );
  }

  /** Waits for resumption attempt `attempt` (0 first) of the stream that ended at `lastEventId`. */
  #awaitResume(ids: JsonRpcId[], lastEventId: string, how: string, attempt: number): void {
    if (ids.length === 0 || this.#closed) return;
    this.#attempts.set(lastEventId, attempt);
    const {
      maxRetries,
      initialReconnectionDelay,
      reconnectionDelayGrowFactor,
      maxReconnectionDelay,
    } = this.#options.reconnection;
    const give = (): void => {
      this.#awaitingResume.delete(lastEventId);
      this.#attempts.delete(lastEventId);
      this.#lost(ids, `connection lost before the response (${how}; not resumed); ${UNKNOWN}`, 0);
    };
    if (attempt >= maxRetries) {
      give();
      return;
    }
    const delay =
      this.#serverRetryMs ??
      Math.min(
        initialReconnectionDelay * reconnectionDelayGrowFactor ** attempt,
        maxReconnectionDelay,
      );
    const timer = setTimeout(give, delay + RESUME_MARGIN_MS);
    timer.unref();
    this.#awaitingResume.set(lastEventId, { ids, timer, attempt });
  }

  #resume(lastEventId: string): JsonRpcId[] {
    const waiting = this.#awaitingResume.get(lastEventId);
    if (!waiting) return [];
    clearTimeout(waiting.timer);
    this.#awaitingResume.delete(lastEventId);
    return waiting.ids.filter((id) => this.#inFlight.has(id));
  }

  #lost(ids: readonly JsonRpcId[], problem: string, delayMs: number): void {
    if (ids.length === 0) return;
    const report = (): void => {
      if (this.#closed) return;
      const open = ids.filter((id) => this.#inFlight.has(id));
      for (const id of open) this.#inFlight.delete(id);
      if (open.length > 0) this.#options.onLost(open, problem);
    };
    if (delayMs === 0) queueMicrotask(report);
    else setTimeout(report, delayMs).unref();
  }

  #cancel(id: JsonRpcId): void {
    const controller = this.#inFlight.get(id);
    this.#inFlight.delete(id);
    controller?.abort(new Error('request cancelled'));
  }

  #error(problem: string, cause?: unknown): McpProtocolError {
    return new McpProtocolError(this.#options.server, problem, { code: -32000, cause });
  }
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
