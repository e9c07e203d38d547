import { CancelledError, McpProtocolError, ToolTimeoutError } from '@mh/core';
import type { McpConnection, McpListChangedMethod, McpRequestOptions } from './mcp-connection.js';

/** One streamable HTTP session, as the adapter opens it. */
export interface HttpSession extends McpConnection {
  /**
   * True when `error`, rejected by this session's `request`, is the server's HTTP 404 to the POST
   * that carried the request and this session's id: the server ended the session and never
   * processed the request. False for anything that went wrong after the server accepted it.
   */
  isExpired(error: unknown): boolean;
  /** Drops the session without telling the server (it no longer knows it). */
  abandon(): Promise<void>;
}

/**
 * A streamable HTTP connection that outlives its sessions. The spec lets a server end a session at
 * any time and answer 404 to requests that carry its id; the client must then open a new one.
 * A request refused that way opens a new session (one handshake, shared by every request that
 * meets the 404 meanwhile) and is sent once more on it: safe even for `tools/call`, since the
 * server never processed it. A request that meets a 404 again fails (at most one new session per
 * request, no loop). When the new session cannot be opened, the connection stays failed: waiting
 * and later requests reject with that error. List-changed listeners move to the new session and
 * are called once, since its lists may differ. Once `close` has begun no session is opened or
 * used: a request then fails, even one that met the 404 before.
 */
export class RenewingConnection implements McpConnection {
  readonly #server: string;
  readonly #open: (signal: AbortSignal) => Promise<HttpSession>;
  /** Aborts a handshake in progress when the connection closes. */
  readonly #closing = new AbortController();
  readonly #listeners = new Map<McpListChangedMethod, (() => void)[]>();
  /** Requests in flight per session: a replaced session is dropped once it has none. */
  readonly #pending = new Map<HttpSession, number>();
  readonly #replaced = new Set<HttpSession>();
  #current: HttpSession;
  #renewal: Promise<HttpSession> | undefined;
  #failure: McpProtocolError | undefined;
  #closed = false;

  /**
   * Wraps the open session `first`; `open` performs a fresh handshake, which it abandons (and
   * rejects) once `signal` aborts.
   */
  constructor(
    server: string,
    first: HttpSession,
    open: (signal: AbortSignal) => Promise<HttpSession>,
  ) {
    this.#server = server;
    this.#current = first;
    this.#open = open;
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#closed) throw this.#closedError(method);
    if (this.#failure) throw this.#failure;
    const session = this.#current;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    try {
      return await this.#send(session, method, params, options);
    } catch (error) {
      if (!session.isExpired(error)) throw error;
      // A session opened now would outlive close() (and could run the request after it).
      if (this.#closed) throw this.#closedError(method, error);
      const label = options.label ?? method;
      const next = await this.#renewed(session, options.signal, deadline, label, timeoutMs).catch(
        (failure: unknown) => {
          throw this.#closed ? this.#closedError(method, failure) : failure;
        },
      );
      if (this.#closed) throw this.#closedError(method, error);
      const left = deadline - Date.now();
      if (left <= 0) throw new ToolTimeoutError(label, timeoutMs);
      try {
        return await this.#send(next, method, params, { ...options, timeoutMs: left });
      } catch (again) {
        // The limit the caller set is what timed out, not the part of it left for the retry.
        if (ToolTimeoutError.isInstance(again)) throw new ToolTimeoutError(label, timeoutMs);
        if (!next.isExpired(again)) throw again;
        const problem = `${method} answered HTTP 404 on a new session too (the server keeps ending sessions); not retried again`;
        throw new McpProtocolError(this.#server, problem, { cause: again });
      }
    }
  }

  onNotification(method: McpListChangedMethod, listener: () => void): void {
    const listeners = this.#listeners.get(method);
    if (listeners) {
      listeners.push(listener);
      return;
    }
    this.#listeners.set(method, [listener]);
    this.#subscribe(this.#current, method);
  }

  async close(): Promise<void> {
    this.#closed = true;
    // A server that never answers the new initialize must not hold close() for its time limit.
    this.#closing.abort();
    await this.#renewal?.catch(() => {});
    const replaced = [...this.#replaced].map((session) => session.abandon());
    this.#replaced.clear();
    const current = this.#failure ? this.#current.abandon() : this.#current.close();
    await Promise.all([current, ...replaced]);
  }

  async #send(
    session: HttpSession,
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    this.#pending.set(session, (this.#pending.get(session) ?? 0) + 1);
    try {
      return await session.request(method, params, options);
    } finally {
      const left = (this.#pending.get(session) ?? 1) - 1;
      if (left > 0) this.#pending.set(session, left);
      else {
        this.#pending.delete(session);
        if (this.#replaced.delete(session)) void session.abandon();
      }
    }
  }

  /** The session that replaces `expired`, waited for within the request's time and signal. */
  #renewed(
    expired: HttpSession,
    signal: AbortSignal | undefined,
    deadline: number,
    label: string,
    timeoutMs: number,
  ): Promise<HttpSession> {
    const renewal = this.#renew(expired);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(new CancelledError('MCP call cancelled'));
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(
        () => reject(new ToolTimeoutError(label, timeoutMs)),
        Math.max(0, deadline - Date.now()),
      );
      void renewal.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      });
    });
  }

  /** One handshake per expired session, however many requests met its 404. */
  #renew(expired: HttpSession): Promise<HttpSession> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#renewal) return this.#renewal;
    if (expired !== this.#current) return Promise.resolve(this.#current);
    this.#renewal = this.#open(this.#closing.signal)
      .then(
        (next) => {
          this.#current = next;
          this.#replace(expired);
          for (const method of this.#listeners.keys()) this.#subscribe(next, method);
          // The new session's lists may differ: take the same path as a list_changed notification.
          queueMicrotask(() => {
            if (this.#closed) return;
            for (const listeners of this.#listeners.values()) {
              for (const each of listeners) {
                try {
                  each();
                } catch {
                  // A listener's failure is its own; it must not surface as an uncaught exception.
                }
              }
            }
          });
          return next;
        },
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          const detail = reason.replace(`MCP server ${this.#server}: `, '');
          this.#failure = new McpProtocolError(
            this.#server,
            `the server ended the session (HTTP 404) and a new session could not be opened: ${detail}`,
            { cause: error },
          );
          this.#replace(expired);
          throw this.#failure;
        },
      )
      .finally(() => {
        this.#renewal = undefined;
      });
    return this.#renewal;
  }

  #closedError(what: string, cause?: unknown): McpProtocolError {
    return new McpProtocolError(this.#server, `${what}: the connection is closed`, { cause });
  }

  #replace(session: HttpSession): void {
    if (this.#pending.has(session)) this.#replaced.add(session);
    else void session.abandon();
  }

  #subscribe(session: HttpSession, method: McpListChangedMethod): void {
    session.onNotification(method, () => {
      if (session !== this.#current) return;
      for (const each of this.#listeners.get(method) ?? []) each();
    });
  }
}
