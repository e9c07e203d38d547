import type { Tool } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpClient, type McpToolsChange, registerMcpTools } from '../src/index.js';
import { control, failure, type HttpFixture, readLog, startHttpServer } from './helpers.js';

// A new session that could not be opened (server restarting, a network blip) must not end the
// client: a later call tries again, no sooner than a delay (1 s, then 2, 4, 8, 10 s, less up to a quarter of jitter) after
// the last failure. And a session the server ends while the client is idle (its GET stream meets
// 404) is renewed without waiting for the next call.

let server: HttpFixture;
const open: McpClient[] = [];
beforeEach(async () => {
  server = await startHttpServer();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
  await server.stop();
});

function client(): McpClient {
  const made = new McpClient('http', { url: `${server.base}/mcp` }, { onWarning: () => {} });
  open.push(made);
  return made;
}

function received(method: string): number {
  return readLog(server.logFile).filter((entry) => entry.method === method).length;
}

function ticks(): number {
  return readLog(server.logFile).filter((entry) => entry.ran === 'tick').length;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('McpClient over HTTP after a new session could not be opened', () => {
  it('opens one on a later call once the backoff delay has passed', async () => {
    const mcp = client();
    await mcp.connect();
    await control(server, 'forget=1&refuse-init=1');
    const first = await failure(mcp.callTool('tick', {}));
    expect(first.server).toBe('http');
    expect(first.message).toMatch(/new session could not be opened: HTTP 500/);
    expect(first.message).toMatch(/a call made after (7\d\d|[89]\d\d|1000) ms tries again/);
    await control(server, 'refuse-init=0');
    const early = await failure(mcp.callTool('tick', {}));
    expect(early.message).toMatch(/a call made after \d+ ms tries again/);
    expect(received('initialize')).toBe(2);
    await sleep(1100);
    const result = await mcp.callTool('tick', {});
    expect(result.content[0]).toEqual({ type: 'text', text: 'tick' });
    expect(received('initialize')).toBe(3);
    expect(ticks()).toBe(1);
  });

  it('makes at most one handshake per backoff delay while the server refuses them', async () => {
    const mcp = client();
    await mcp.connect();
    await control(server, 'forget=1&refuse-init=1');
    const started = performance.now();
    let calls = 0;
    let slowest = 0;
    while (performance.now() - started < 3500) {
      const before = performance.now();
      await failure(mcp.callTool('tick', {}));
      slowest = Math.max(slowest, performance.now() - before);
      calls++;
      await sleep(50);
    }
    const handshakes = received('initialize') - 1;
    // At 0 s, after 1 s, after 2 s more: the next is due at 7 s.
    expect(handshakes).toBeGreaterThanOrEqual(2);
    expect(handshakes).toBeLessThanOrEqual(3);
    expect(slowest).toBeLessThan(1000);
    expect(ticks()).toBe(0);
    process.stdout.write(
      `HTTP: initialize refused for 3.5 s: ${calls} calls, ${handshakes} handshakes, slowest failure ${slowest.toFixed(0)} ms\n`,
    );
  });

  it('recovers when the server restarts on the same URL', async () => {
    const mcp = client();
    await mcp.connect();
    await mcp.callTool('tick', {});
    const port = Number(new URL(server.base).port);
    await server.stop();
    const down = await failure(mcp.callTool('tick', {}));
    expect(down.message).toMatch(/cannot connect/);
    server = await startHttpServer({ port, logFile: server.logFile });
    // Still starting: the first initialize's connection is reset.
    await control(server, 'reset-init=1');
    const back = performance.now();
    let result: Awaited<ReturnType<McpClient['callTool']>> | undefined;
    let calls = 0;
    while (!result && performance.now() - back < 15_000) {
      calls++;
      result = await mcp.callTool('tick', {}, { timeoutMs: 5000 }).catch(() => undefined);
      if (!result) await sleep(100);
    }
    const elapsed = performance.now() - back;
    expect(result?.content[0]).toEqual({ type: 'text', text: 'tick' });
    expect(elapsed).toBeLessThan(3000);
    expect(ticks()).toBe(2);
    process.stdout.write(
      `HTTP: server restarted on the same port -> first successful call after ${elapsed.toFixed(0)} ms (${calls} calls, ${received('initialize')} initialize in all)\n`,
    );
  });

  it('stops at once when closed during the backoff delay and opens nothing afterwards', async () => {
    const mcp = client();
    await mcp.connect();
    await control(server, 'forget=1&refuse-init=1');
    await failure(mcp.callTool('tick', {}));
    await control(server, 'refuse-init=0');
    const started = performance.now();
    await mcp.close();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(500);
    await sleep(1100);
    const after = await failure(mcp.callTool('tick', {}));
    expect(after.message).toMatch(/connection is closed/);
    expect(received('initialize')).toBe(2);
    expect(ticks()).toBe(0);
  });
});

describe('registerMcpTools on an idle client whose session the server ended', () => {
  it('re-lists the tools of the new session without any call being made', async () => {
    const mcp = client();
    await mcp.connect();
    const tools = new Map<string, Tool>();
    const changes: McpToolsChange[] = [];
    await registerMcpTools(
      { register: (tool) => tools.set(tool.name, tool), unregister: (name) => tools.delete(name) },
      mcp,
      { onWarning: () => {}, onRefresh: (change) => changes.push(change) },
    );
    expect(tools.has('http__extra')).toBe(false);
    const ended = performance.now();
    await control(server, 'end=1&extra=1');
    let refreshed = false;
    while (!refreshed && performance.now() - ended < 5000) {
      refreshed = tools.has('http__extra');
      if (!refreshed) await sleep(20);
    }
    const elapsed = performance.now() - ended;
    expect(refreshed).toBe(true);
    expect(changes.map((change) => change.added)).toEqual([['http__extra']]);
    expect(received('initialize')).toBe(2);
    expect(received('tools/call')).toBe(0);
    process.stdout.write(
      `HTTP: idle client, session ended by the server -> tools re-listed after ${elapsed.toFixed(0)} ms\n`,
    );
  });
});

describe('McpClient over HTTP, idle, when the server ends every new session at once', () => {
  it('opens one new session, not one after another', async () => {
    const mcp = client();
    await mcp.connect();
    await mcp.listTools();
    // Each new session's GET stream and requests meet 404: were a new session's probe to renew, the
    // client would open sessions in a loop with no call made (160 in 3 s before the fix).
    await control(server, 'end=1&expire=1&no-get=1');
    await sleep(2500);
    expect(received('initialize')).toBe(2);
    expect(received('ping')).toBe(1);
    // That session answered nothing: a call fails at once, and the next handshake waits 1 s.
    const error = await failure(mcp.callTool('tick', {}));
    expect(error.message).toMatch(
      /before it answered anything.*after (7\d\d|[89]\d\d|1000) ms tries again/,
    );
    expect(received('initialize')).toBe(2);
    await sleep(1100);
    await failure(mcp.callTool('tick', {}));
    expect(received('initialize')).toBe(3);
    expect(ticks()).toBe(0);
  });
});

describe('McpClient over HTTP when the server ends every new session at once', () => {
  it('opens at most one session per backoff delay for a listener that re-lists on change', async () => {
    const mcp = client();
    await mcp.connect();
    await mcp.listTools();
    mcp.onToolsChanged(() => {
      setTimeout(() => void mcp.listTools().catch(() => {}), 10);
    });
    await control(server, 'forget=1&expire=1');
    await failure(mcp.callTool('tick', {}));
    await sleep(2000);
    // Before the fix: 91 handshakes in 3 s, each re-listing meeting 404 and renewing again.
    expect(received('initialize')).toBeLessThanOrEqual(3);
    expect(ticks()).toBe(0);
  });
});
