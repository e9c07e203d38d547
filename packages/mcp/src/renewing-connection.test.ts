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
  readonly waiting: (() => void)[] = [];
  readonly listeners: (() => void)[] = [];

  request(
    method: string,
    _params: Record<string, unknown>,
    _options?: McpRequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.expired) return Promise.reject(EXPIRED);
    return new Promise((resolve) => this.waiting.push(() => resolve({ method })));
  }
  settle(): void {
    for (const each of this.waiting.splice(0)) each();
  }
  isExpired(error: unknown): boolean {
    return error === EXPIRED;
  }
  onNotification(_method: McpListChangedMethod, listener: () => void): void {
    this.listeners.push(listener);
  }
  async abandon(): Promise<void> {
    this.abandoned = true;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
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
    await new Promise((resolve) => setTimeout(resolve, 0));
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
    await new Promise((resolve) => setTimeout(resolve, 0));
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
    await new Promise((resolve) => setTimeout(resolve, 0));
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
    await new Promise((resolve) => setTimeout(resolve, 0));
    const closing = connection.close();
    finish();
    await closing;
    expect(second.closed).toBe(true);
    expect(first.abandoned).toBe(true);
    second.settle();
    await request;
  });
});
