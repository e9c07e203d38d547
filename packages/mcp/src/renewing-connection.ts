import { type Clock, McpProtocolError, systemClock, ToolTimeoutError } from '@mh/core';
import type { McpConnection, McpListChangedMethod, McpRequestOptions } from './mcp-connection.js';
import { RenewalBackoff } from './renewal-backoff.js';
import { type RequestLimit, requestLimit, timeLeft, waitWithin } from './request-limit.js';

/** One streamable HTTP session, as the adapter opens it. */
export interface HttpSession extends McpConnection {
  /**
   * True when `error`, rejected by this session's `request`, is the server's HTTP 404 to the POST
   * that carried the request and this session's id: the server ended the session and never
   * processed the request. False for anything that went wrong after the server accepted it.
   */
  isExpired(error: unknown): boolean;
  /**
   * Calls `listener` once when the server answers a GET stream of this session (the standalone
   * one, or a resumption) with HTTP 404; at once when that already happened.
   */
  onEnded(listener: () => void): void;
  /** Drops the session without telling the server (it no longer knows it). */
  abandon(): Promise<void>;
}

/** Time allowed for the `ping` that checks a session whose GET stream met 404, in ms. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * A streamable HTTP connection that outlives its sessions. The spec lets a server end a session at
 * any time and answer 404 to requests that carry its id; the client must then open a new one.
 * A request refused that way opens a new session (one handshake, shared by every request that
 * meets the 404 meanwhile) and is sent once more on it: safe even for `tools/call`, since the
 * server never processed it. A request takes part in one renewal at most: a 404 on the new session
 * fails it (no loop). A GET stream answered 404 (the server ended the session of an idle client)
 * is checked with a `ping`, whose 404 starts the same renewal; nothing is re-sent. A session opened
 * by a renewal is checked so only once it has answered a request: a server that ends every new
 * session at once would otherwise make an idle client open one session after another.
 *
 * When the new session cannot be opened, the requests waiting for it fail; a later request tries
 * again, but no sooner than 1 s after the failure, doubling per failure in a row up to 10 s: in
 * between, requests fail at once saying when the next attempt may be made. List-changed listeners
 * move to each new session and are called once, since its lists may differ. Once `close` has begun
 * no session is opened or used: a request then fails, even one that met the 404 before.
 */
export class RenewingConnection implements McpConnection {
  readonly #server: string;
  readonly #open: (signal: AbortSignal) => Promise<HttpSession>;
  readonly #backoff: RenewalBackoff;
  /** Aborts a handshake in progress when the connection closes. */
  readonly #closing = new AbortController();
  readonly #listeners = new Map<McpListChangedMethod, (() => void)[]>();
  /** Requests in flight per session: a replaced session is dropped once it has none. */
  readonly #pending = new Map<HttpSession, number>();
  readonly #replaced = new Set<HttpSession>();
  #current: HttpSession;
  /**
   * False while `#current` was opened by a renewal and has answered nothing yet: a GET 404 then
   * starts no renewal (the first session, opened by the caller, counts as answered).
   */
  #answered = true;
  #renewal: Promise<HttpSession> | undefined;
  #closed = false;

  /**
   * Wraps the open session `first`; `open` performs a fresh handshake, which it abandons (and
   * rejects) once `signal` aborts. `clock` times the delay between failed handshakes and `random`
   * draws its jitter.
   */
  constructor(
    server: string,
    first: HttpSession,
    open: (signal: AbortSignal) => Promise<HttpSession>,
    clock: Pick<Clock, 'now'> = systemClock,
    random: () => number = Math.random,
  ) {
    this.#server = server;
    this.#current = first;
    this.#open = open;
    this.#backoff = new RenewalBackoff(clock, random);
    this.#watch(first);
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#closed) throw this.#closedError(method);
    const timeoutMs = options.timeoutMs ?? 60_000;
    const limit = requestLimit(options.label ?? method, timeoutMs);
    // The current session is being replaced, or ended with no replacement yet: wait for the new
    // one (this request's one renewal) rather than meet the 404 first.
    const waited = this.#renewal !== undefined || this.#backoff.failed;
    let session = waited
      ? await this.#renewed(this.#current, method, options.signal, limit)
      : this.#current;
    try {
      return await this.#sendWithin(session, method, params, options, limit);
    } catch (error) {
      if (!session.isExpired(error)) throw error;
      // A session opened now would outlive close() (and could run the request after it).
      if (this.#closed) throw this.#closedError(method, error);
      if (waited) throw this.#expiredAgain(method, error);
      session = await this.#renewed(session, method, options.signal, limit, error);
    }
    try {
      return await this.#sendWithin(session, method, params, options, limit);
    } catch (again) {
      if (!session.isExpired(again)) throw again;
      throw this.#expiredAgain(method, again);
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
    const current = this.#backoff.failed ? this.#current.abandon() : this.#current.close();
    await Promise.all([current, ...replaced]);
  }

  /** Sends within what is left of the request's limit; a timeout reports the whole limit. */
  async #sendWithin(
    session: HttpSession,
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions,
    limit: RequestLimit,
  ): Promise<Record<string, unknown>> {
    const left = timeLeft(limit);
    if (left <= 0) throw new ToolTimeoutError(limit.label, limit.timeoutMs);
    try {
      return await this.#send(session, method, params, { ...options, timeoutMs: left });
    } catch (error) {
      if (ToolTimeoutError.isInstance(error))
        throw new ToolTimeoutError(limit.label, limit.timeoutMs);
      throw error;
    }
  }

  async #send(
    session: HttpSession,
    method: string,
    params: Record<string, unknown>,
    options: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    this.#pending.set(session, (this.#pending.get(session) ?? 0) + 1);
    try {
      const result = await session.request(method, params, options);
      if (session === this.#current && !this.#answered) {
        this.#answered = true;
        this.#backoff.succeed();
      }
      return result;
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
  async #renewed(
    expired: HttpSession,
    method: string,
    signal: AbortSignal | undefined,
    limit: RequestLimit,
    cause?: unknown,
  ): Promise<HttpSession> {
    const next = await waitWithin(this.#renew(expired, cause), limit, signal).catch(
      (failure: unknown) => {
        throw this.#closed ? this.#closedError(method, failure) : failure;
      },
    );
    if (this.#closed) throw this.#closedError(method);
    return next;
  }

  /**
   * One handshake per expired session, however many requests met its 404 (`cause`); after a
   * failed one, a new attempt only once the delay has passed. A renewed session ended before it
   * answered anything counts as a failed renewal: otherwise a server that ends every new session
   * at once, and a list-changed listener that re-lists, would open sessions in a loop.
   */
  #renew(expired: HttpSession, cause?: unknown): Promise<HttpSession> {
    if (this.#renewal) return this.#renewal;
    if (expired !== this.#current) return Promise.resolve(this.#current);
    if (!this.#answered && !this.#backoff.failed) {
      const reason = 'the server ended the new session too, before it answered anything (HTTP 404)';
      const delay = this.#backoff.fail(cause, reason);
      this.#replace(expired);
      return Promise.reject(this.#renewalFailure(cause, reason, delay));
    }
    const failed = this.#backoff.failed;
    const wait = this.#backoff.waitMs();
    const { cause: last, reason: why } = this.#backoff;
    if (wait > 0) return Promise.reject(this.#renewalFailure(last, why, wait));
    this.#renewal = this.#open(this.#closing.signal)
      .then(
        (next) => {
          this.#current = next;
          this.#answered = false;
          this.#backoff.opened();
          // After a failure the ended session was already dropped.
          if (!failed) this.#replace(expired);
          this.#watch(next);
          for (const method of this.#listeners.keys()) this.#subscribe(next, method);
          // The new session's lists may differ: take the same path as a list_changed notification.
          queueMicrotask(() => this.#callAllListeners());
          return next;
        },
        (error: unknown) => {
          const reason = this.#notOpened(error);
          const delay = this.#backoff.fail(error, reason);
          if (!failed) this.#replace(expired);
          throw this.#renewalFailure(error, reason, delay);
        },
      )
      .finally(() => {
        this.#renewal = undefined;
      });
    return this.#renewal;
  }

  /**
   * The server refused a GET stream of `session` with 404. Servers without a GET route answer so
   * too, and renewing on it would loop; a POST refused with 404 is the spec's signal, so a `ping`
   * (never a caller's request) checks, and its 404 starts the renewal. Not for a renewed session
   * that has answered nothing: against a server that ends every new session at once, each new
   * session's GET would meet 404 and renew again, with no call made; a call renews it instead.
   */
  #probe(session: HttpSession): void {
    if (this.#closed || session !== this.#current || !this.#answered) return;
    if (this.#renewal || this.#backoff.failed) return;
    this.#send(session, 'ping', {}, { timeoutMs: PROBE_TIMEOUT_MS }).then(
      () => {},
      (error: unknown) => {
        if (session.isExpired(error) && !this.#closed) this.#renew(session).catch(() => {});
      },
    );
  }

  #watch(session: HttpSession): void {
    session.onEnded(() => this.#probe(session));
  }

  #callAllListeners(): void {
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
  }

  #notOpened(cause: unknown): string {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const detail = reason.replace(`MCP server ${this.#server}: `, '');
    return `the server ended the session (HTTP 404) and a new session could not be opened: ${detail}`;
  }

  #renewalFailure(cause: unknown, reason: string, waitMs: number): McpProtocolError {
    const next = `a call made after ${Math.ceil(waitMs)} ms tries again`;
    return new McpProtocolError(this.#server, `${reason}; ${next}`, { cause });
  }

  #expiredAgain(method: string, cause: unknown): McpProtocolError {
    const problem = `${method} answered HTTP 404 on a new session too (the server keeps ending sessions); not retried again`;
    return new McpProtocolError(this.#server, problem, { cause });
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
