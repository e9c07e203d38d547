import { CancelledError, McpProtocolError, ToolTimeoutError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import type { McpListChangedMethod, McpRequestOptions } from './mcp-connection.js';
import { type HttpSession, RenewingConnection } from './renewing-connection.js';

const EXPIRED = new McpProtocolError('s', 'HTTP 404 Not Found');

/** A session whose requests resolve when `settle` is called, or reject with `EXPIRED` once `expire` is set. */
class FakeSession implements HttpSession {
  expired = false;
  abandoned = false;
  closed = false;
  readonly waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  readonly listeners: (() => void)[] = [];
  /** Methods of every request received, in order. */
  readonly received: string[] = [];

  request(
    method: string,
    _params: Record<string, unknown>,
    _options?: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    this.received.push(method);
    if (this.expired) return Promise.reject(EXPIRED);
    return new Promise((resolve, reject) =>
      this.waiting.push({ resolve: () => resolve({ method }), reject }),
    );
  }
  settle(): void {
    for (const each of this.waiting.splice(0)) each.resolve();
  }
  /** Answers the pending requests with the 404 of an ended session. */
  expireWaiting(): void {
    this.expired = true;
    for (const each of this.waiting.splice(0)) each.reject(EXPIRED);
  }
  isExpired(error: unknown): boolean {
    return error === EXPIRED;
  }
  onNotification(_method: McpListChangedMethod, listener: () => void): void {
    this.listeners.push(listener);
  }
  /** Reports a GET stream answered 404, as the adapter does (a later listener is called too). */
  end(): void {
    this.hasEnded = true;
    for (const each of this.ended.splice(0)) each();
  }
  hasEnded = false;
  readonly ended: (() => void)[] = [];
  onEnded(listener: () => void): void {
    if (this.hasEnded) queueMicrotask(listener);
    else this.ended.push(listener);
  }
  async abandon(): Promise<void> {
    this.abandoned = true;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Lets the pending promise callbacks and timers of this turn run. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A connection over `first` whose handshakes call `open`, on a fake clock, at the top of the
 * jitter range (the backoff delays are exact).
 */
function onFakeClock(
  first: FakeSession,
  open: () => Promise<HttpSession>,
): { connection: RenewingConnection; clock: { time: number; now: () => number } } {
  const clock = { time: 0, now: () => clock.time };
  return { connection: new RenewingConnection('s', first, open, clock, () => 1), clock };
}

/** A handshake that completes when `finish` is called. */
function slowOpen(next: FakeSession): { open: () => Promise<HttpSession>; finish: () => void } {
  let finish = (): void => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { open: () => done.then(() => next), finish };
}

describe('RenewingConnection', () => {
  it('cancels a request whose signal aborts during the new handshake; others still get the new session', async () => {
    const first = new FakeSession();
    const second = new FakeSession();
    const { open, finish } = slowOpen(second);
    const connection = new RenewingConnection('s', first, open);
    first.expired = true;
    const controller = new AbortController();
    const cancelled = connection.request('tools/call', {}, { signal: controller.signal });
    const other = connection.request('tools/list', {});
    controller.abort();
    await expect(cancelled).rejects.toSatisfy(CancelledError.isInstance);
    finish();
    await nextTurn();
    second.settle();
    await expect(other).resolves.toEqual({ method: 'tools/list' });
  });

  it('times out a request whose new session is not ready within its time limit', async () => {
    const first = new FakeSession();
    const { open } = slowOpen(new FakeSession());
    const connection = new RenewingConnection('s', first, open);
    first.expired = true;
    const error = await connection
      .request('tools/call', {}, { timeoutMs: 50, label: 'tick' })
      .catch((caught: unknown) => caught);
    expect(ToolTimeoutError.isInstance(error)).toBe(true);
  });

  it('drops a replaced session only after its pending requests settle', async () => {
    const first = new FakeSession();
    const second = new FakeSession();
    const connection = new RenewingConnection('s', first, async () => second);
    const pending = connection.request('tools/call', { name: 'slow' });
    first.expired = true;
    const retried = connection.request('tools/list', {});
    await nextTurn();
    expect(first.abandoned).toBe(false);
    second.settle();
    await expect(retried).resolves.toEqual({ method: 'tools/list' });
    first.settle();
    await expect(pending).resolves.toEqual({ method: 'tools/call' });
    expect(first.abandoned).toBe(true);
    expect(first.closed).toBe(false);
  });

  it('moves list-changed listeners to the new session and calls them once', async () => {
    const first = new FakeSession();
    const second = new FakeSession();
    const connection = new RenewingConnection('s', first, async () => second);
    let calls = 0;
    connection.onNotification('notifications/tools/list_changed', () => calls++);
    first.expired = true;
    const retried = connection.request('tools/list', {});
    await nextTurn();
    expect(calls).toBe(1);
    for (const each of first.listeners) each();
    expect(calls).toBe(1);
    for (const each of second.listeners) each();
    expect(calls).toBe(2);
    second.settle();
    await retried;
  });

  it('ends the new session when closed during the handshake', async () => {
    const first = new FakeSession();
    const second = new FakeSession();
    const { open, finish } = slowOpen(second);
    const connection = new RenewingConnection('s', first, open);
    first.expired = true;
    const request = connection.request('tools/list', {}).catch((caught: unknown) => caught);
    await nextTurn();
    const closing = connection.close();
    finish();
    await closing;
    expect(second.closed).toBe(true);
    expect(first.abandoned).toBe(true);
    second.settle();
    await request;
  });

  it('opens no new session for a 404 that arrives once close() has begun', async () => {
    const first = new FakeSession();
    let opened = 0;
    const connection = new RenewingConnection('s', first, async () => {
      opened++;
      return new FakeSession();
    });
    const pending = connection.request('tools/call', {}).catch((caught: unknown) => caught);
    const closing = connection.close();
    first.expireWaiting();
    const error = await pending;
    await closing;
    expect(opened).toBe(0);
    expect(McpProtocolError.isInstance(error) && error.server).toBe('s');
    expect(String(error)).toMatch(/closed/);
  });

  it('sends nothing on the new session once closed during the handshake', async () => {
    const first = new FakeSession();
    const second = new FakeSession();
    const { open, finish } = slowOpen(second);
    let listened = 0;
    const connection = new RenewingConnection('s', first, open);
    connection.onNotification('notifications/tools/list_changed', () => listened++);
    first.expired = true;
    const request = connection.request('tools/call', {}).catch((caught: unknown) => caught);
    await nextTurn();
    const closing = connection.close();
    finish();
    await closing;
    const error = await request;
    await nextTurn();
    expect(second.received).toEqual([]);
    expect(second.closed).toBe(true);
    expect(listened).toBe(0);
    expect(McpProtocolError.isInstance(error)).toBe(true);
  });

  it('rejects a request made after close without touching any session', async () => {
    const first = new FakeSession();
    const connection = new RenewingConnection('s', first, async () => new FakeSession());
    await connection.close();
    const error = await connection.request('tools/list', {}).catch((caught: unknown) => caught);
    expect(McpProtocolError.isInstance(error) && error.server).toBe('s');
    expect(first.received).toEqual([]);
  });

  it('reports the request limit, not the time left, when the retried request times out', async () => {
    const first = new FakeSession();
    const second = new (class extends FakeSession {
      override request(
        method: string,
        _params: Record<string, unknown>,
        options?: McpRequestOptions,
      ): Promise<Record<string, unknown>> {
        this.received.push(method);
        return Promise.reject(
          new ToolTimeoutError(options?.label ?? method, options?.timeoutMs ?? 0),
        );
      }
    })();
    const connection = new RenewingConnection('s', first, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return second;
    });
    first.expired = true;
    const error = await connection
      .request('tools/call', {}, { timeoutMs: 5_000, label: 'tick' })
      .catch((caught: unknown) => caught);
    expect(ToolTimeoutError.isInstance(error) && error.toolName).toBe('tick');
    expect(ToolTimeoutError.isInstance(error) && error.timeoutMs).toBe(5_000);
  });

  describe('after a new session could not be opened', () => {
    const REFUSED = new McpProtocolError('s', 'HTTP 500 Internal Server Error');

    /** A connection whose handshakes follow `results` (a session, or a failure), on a fake clock. */
    function failing(results: (FakeSession | Error)[]) {
      const first = new FakeSession();
      let opened = 0;
      const { connection, clock } = onFakeClock(first, async () => {
        const next = results[opened++];
        if (!next || next instanceof Error) throw next ?? REFUSED;
        return next;
      });
      first.expired = true;
      return { connection, clock, opened: () => opened };
    }

    const failure = (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );

    it('fails the waiting requests, then opens a session on a request once the delay has passed', async () => {
      const second = new FakeSession();
      const { connection, clock, opened } = failing([REFUSED, second]);
      const waiting = await Promise.all([
        failure(connection.request('tools/call', {})),
        failure(connection.request('tools/list', {})),
      ]);
      expect(opened()).toBe(1);
      for (const error of waiting) {
        expect(McpProtocolError.isInstance(error) && error.server).toBe('s');
        expect(String(error)).toMatch(/could not be opened: HTTP 500.*after 1000 ms tries again/);
      }
      clock.time = 1000;
      const later = connection.request('tools/call', {});
      await nextTurn();
      second.settle();
      await expect(later).resolves.toEqual({ method: 'tools/call' });
      expect(opened()).toBe(2);
      expect(second.received).toEqual(['tools/call']);
    });

    it('fails requests at once during the delay, which doubles per failure up to 10 s', async () => {
      const { connection, clock, opened } = failing([]);
      const delays: number[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        const error = await failure(connection.request('tools/call', {}));
        const delay = Number(/after (\d+) ms/.exec(String(error))?.[1]);
        delays.push(delay);
        clock.time += delay - 1;
        const early = await failure(connection.request('tools/call', {}));
        expect(String(early)).toMatch(/after 1 ms tries again/);
        clock.time += 1;
      }
      expect(delays).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
      expect(opened()).toBe(6);
    });

    it('starts the delay again from 1 s after a handshake succeeded', async () => {
      const second = new FakeSession();
      const { connection, clock, opened } = failing([REFUSED, REFUSED, second, REFUSED]);
      await failure(connection.request('tools/call', {}));
      clock.time = 1000;
      await failure(connection.request('tools/call', {}));
      clock.time = 3000;
      const ok = connection.request('tools/list', {});
      await nextTurn();
      second.settle();
      await ok;
      second.expired = true;
      const error = await failure(connection.request('tools/call', {}));
      expect(String(error)).toMatch(/after 1000 ms tries again/);
      expect(opened()).toBe(4);
    });

    it('shares one handshake between the requests that arrive once the delay has passed', async () => {
      const second = new FakeSession();
      const { connection, clock, opened } = failing([REFUSED, second]);
      await failure(connection.request('tools/call', {}));
      clock.time = 1000;
      const requests = Array.from({ length: 4 }, () => connection.request('tools/call', {}));
      await nextTurn();
      second.settle();
      await Promise.all(requests);
      expect(opened()).toBe(2);
      expect(second.received).toHaveLength(4);
    });

    it('opens nothing once closed during the delay', async () => {
      const { connection, clock, opened } = failing([REFUSED, new FakeSession()]);
      await failure(connection.request('tools/call', {}));
      let closed = false;
      void connection.close().then(() => {
        closed = true;
      });
      // At once: the clock has not moved, so a close that waited the delay out would still wait.
      await nextTurn();
      expect(closed).toBe(true);
      clock.time = 5000;
      const error = await failure(connection.request('tools/call', {}));
      expect(String(error)).toMatch(/connection is closed/);
      expect(opened()).toBe(1);
    });
  });

  describe('when each new session is ended before it answers anything', () => {
    it('waits out the delay before the next handshake, so a re-listing listener cannot loop', async () => {
      const first = new FakeSession();
      let opened = 0;
      const { connection, clock } = onFakeClock(first, async () => {
        opened++;
        const next = new FakeSession();
        next.expired = true;
        return next;
      });
      // A listener that re-lists a little later, as an application may.
      const relists: Promise<unknown>[] = [];
      connection.onNotification('notifications/tools/list_changed', () => {
        setTimeout(() => relists.push(connection.request('tools/list', {}).catch((e) => e)), 1);
      });
      first.expired = true;
      const error = await connection.request('tools/call', {}).catch((caught: unknown) => caught);
      expect(McpProtocolError.isInstance(error)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(opened).toBe(1);
      const relisted = await Promise.all(relists);
      expect(String(relisted[0])).toMatch(/before it answered.*after 1000 ms tries again/);
      clock.time = 1000;
      await connection.request('tools/call', {}).catch(() => {});
      expect(opened).toBe(2);
      const later = await connection.request('tools/call', {}).catch((caught: unknown) => caught);
      expect(String(later)).toMatch(/after 2000 ms tries again/);
      await connection.close();
    });
  });

  describe('when a GET stream of the session met 404', () => {
    it('checks with ping, renews on its 404 and calls the list-changed listeners; nothing re-sent', async () => {
      const first = new FakeSession();
      const second = new FakeSession();
      let opened = 0;
      const connection = new RenewingConnection('s', first, async () => {
        opened++;
        return second;
      });
      let listened = 0;
      connection.onNotification('notifications/tools/list_changed', () => listened++);
      first.expired = true;
      first.end();
      await nextTurn();
      expect(first.received).toEqual(['ping']);
      expect(opened).toBe(1);
      expect(second.received).toEqual([]);
      expect(listened).toBe(1);
      expect(first.abandoned).toBe(true);
    });

    it('does not renew again from a new session that has answered nothing (no loop)', async () => {
      const first = new FakeSession();
      const sessions = [new FakeSession(), new FakeSession(), new FakeSession()];
      let opened = 0;
      const connection = new RenewingConnection('s', first, async () => {
        const next = sessions[opened++] as FakeSession;
        // A server that ends every new session at once: its requests meet 404.
        next.expired = true;
        return next;
      });
      first.expired = true;
      first.end();
      await nextTurn();
      expect(opened).toBe(1);
      // Its GET stream, opened after the handshake, meets 404 too.
      sessions[0]?.end();
      await nextTurn();
      sessions[1]?.end();
      await nextTurn();
      expect(opened).toBe(1);
      expect(sessions[0]?.received).toEqual([]);
      await connection.close();
    });

    it('renews again from a new session once it has answered a request', async () => {
      const first = new FakeSession();
      const second = new FakeSession();
      let opened = 0;
      const connection = new RenewingConnection('s', first, async () => {
        opened++;
        return opened === 1 ? second : new FakeSession();
      });
      first.expired = true;
      first.end();
      await nextTurn();
      const listed = connection.request('tools/list', {});
      await nextTurn();
      second.settle();
      await listed;
      second.expired = true;
      second.end();
      await nextTurn();
      expect(opened).toBe(2);
      await connection.close();
    });

    it('keeps the session when the ping is answered (a server without a GET route)', async () => {
      const first = new FakeSession();
      let opened = 0;
      const connection = new RenewingConnection('s', first, async () => {
        opened++;
        return new FakeSession();
      });
      first.end();
      await nextTurn();
      first.settle();
      await nextTurn();
      expect(first.received).toEqual(['ping']);
      expect(opened).toBe(0);
      await connection.close();
      expect(first.closed).toBe(true);
    });
  });
});
