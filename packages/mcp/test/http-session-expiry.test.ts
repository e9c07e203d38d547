import { McpProtocolError, type Tool, ToolTimeoutError } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  McpClient,
  type McpClientOptions,
  type McpToolsChange,
  registerMcpTools,
} from '../src/index.js';
import {
  control,
  failure,
  type HttpFixture,
  readLog,
  startHttpServer,
  waitFor,
} from './helpers.js';

// The spec (Streamable HTTP, session management): a server may end a session at any time and
// then answers requests carrying its id with 404; the client must open a new session.

let server: HttpFixture;
const open: McpClient[] = [];
beforeEach(async () => {
  server = await startHttpServer();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
  await server.stop();
});

function client(path: string, options: McpClientOptions = {}): McpClient {
  const made = new McpClient(
    'http',
    { url: `${server.base}${path}` },
    { onWarning: () => {}, ...options },
  );
  open.push(made);
  return made;
}

function initializes(): number {
  return readLog(server.logFile).filter((entry) => entry.method === 'initialize').length;
}

function runs(tool: string): Record<string, unknown>[] {
  return readLog(server.logFile).filter((entry) => entry.ran === tool);
}

describe('McpClient over HTTP when the server ends the session', () => {
  for (const path of ['/mcp', '/mcp-json']) {
    it(`opens a new session with one initialize and retries the call (${path})`, async () => {
      const mcp = client(path);
      await mcp.connect();
      const started = performance.now();
      await mcp.callTool('echo', { text: 'before' });
      const normal = performance.now() - started;
      expect(initializes()).toBe(1);
      await control(server, 'forget=1');
      const expired = performance.now();
      const result = await mcp.callTool('echo', { text: 'after' });
      const renewed = performance.now() - expired;
      expect(result.content[0]).toEqual({ type: 'text', text: 'after' });
      expect(initializes()).toBe(2);
      await mcp.callTool('echo', { text: 'again' });
      expect(initializes()).toBe(2);
      process.stdout.write(
        `HTTP ${path}: call before expiry ${normal.toFixed(0)} ms; 404 -> new session -> retried result ${renewed.toFixed(0)} ms\n`,
      );
    });
  }

  it('runs a call the server refused with 404 exactly once', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    await mcp.callTool('tick', {});
    await control(server, 'forget=1');
    expect((await mcp.callTool('tick', {})).content[0]).toEqual({ type: 'text', text: 'tick' });
    const ticks = runs('tick');
    expect(ticks).toHaveLength(2);
    expect(ticks[1]?.session).not.toBe(ticks[0]?.session);
  });

  it('shares one re-initialisation between concurrent calls that meet the 404', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    await control(server, 'forget=1');
    const results = await Promise.all(Array.from({ length: 5 }, () => mcp.callTool('tick', {})));
    expect(results.map((result) => result.content[0]?.text)).toEqual(Array(5).fill('tick'));
    expect(initializes()).toBe(2);
    expect(new Set(runs('tick').map((entry) => entry.session)).size).toBe(1);
    expect(runs('tick')).toHaveLength(5);
  });

  it('gives up after one retry when every new session is expired at once', async () => {
    const mcp = client('/mcp-forgetful');
    await mcp.connect();
    const started = performance.now();
    const error = await failure(mcp.callTool('tick', {}, { timeoutMs: 30_000 }));
    const elapsed = performance.now() - started;
    expect(error.server).toBe('http');
    expect(error.message).toMatch(/HTTP 404/);
    expect(error.message).toMatch(/new session/);
    expect(initializes()).toBe(2);
    expect(runs('tick')).toHaveLength(0);
    expect(elapsed).toBeLessThan(5000);
    // The new session ended before it answered anything: no handshake until the delay has passed.
    const next = await failure(mcp.callTool('tick', {}, { timeoutMs: 30_000 }));
    expect(next.message).toMatch(
      /before it answered anything.*after (7\d\d|[89]\d\d|1000) ms tries again/,
    );
    expect(initializes()).toBe(2);
    process.stdout.write(
      `HTTP: every session expired -> call failed after ${elapsed.toFixed(0)} ms\n`,
    );
  });

  it('fails pending calls, and later ones during the retry delay, when the new session cannot be opened', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    await control(server, 'forget=1&refuse-init=1');
    const started = performance.now();
    const settled = await Promise.allSettled(
      Array.from({ length: 3 }, () => mcp.callTool('tick', {}, { timeoutMs: 30_000 })),
    );
    const elapsed = performance.now() - started;
    for (const each of settled) {
      expect(each.status).toBe('rejected');
      const reason = (each as PromiseRejectedResult).reason;
      expect(McpProtocolError.isInstance(reason), String(reason)).toBe(true);
      expect((reason as McpProtocolError).message).toMatch(/new session.*HTTP 500/);
    }
    expect(elapsed).toBeLessThan(5000);
    expect(initializes()).toBe(2);
    const later = await failure(mcp.callTool('tick', {}));
    expect(later.message).toMatch(/new session/);
    expect(initializes()).toBe(2);
    expect(runs('tick')).toHaveLength(0);
  });

  for (const path of ['/mcp', '/mcp-resumable']) {
    it(`does not retry a call whose stream broke after the server accepted it (${path})`, async () => {
      const mcp = client(path);
      await mcp.connect();
      const started = performance.now();
      const error = await failure(mcp.callTool('vanish', {}, { timeoutMs: 30_000 }));
      const elapsed = performance.now() - started;
      expect(error.message).toMatch(/outcome unknown/);
      expect(runs('vanish')).toHaveLength(1);
      expect(initializes()).toBe(1);
      expect(elapsed).toBeLessThan(5000);
      const result = await mcp.callTool('echo', { text: 'next' });
      expect(result.content[0]).toEqual({ type: 'text', text: 'next' });
      expect(runs('vanish')).toHaveLength(1);
      expect(initializes()).toBe(2);
      process.stdout.write(
        `HTTP ${path}: stream cut, session gone -> failed after ${elapsed.toFixed(0)} ms\n`,
      );
    });
  }

  it('reports the limit the caller set when the retried call times out', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    await control(server, 'forget=1');
    const error = await mcp.callTool('hang', {}, { timeoutMs: 1500 }).catch((caught) => caught);
    expect(ToolTimeoutError.isInstance(error), String(error)).toBe(true);
    expect((error as ToolTimeoutError).timeoutMs).toBe(1500);
    expect(initializes()).toBe(2);
  });

  it('opens no new session, and runs nothing, for a 404 met while closing', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    await control(server, 'forget=1');
    const call = mcp.callTool('tick', {}).then(
      () => 'ran',
      (caught: unknown) => caught,
    );
    await mcp.close();
    const outcome = await call;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(McpProtocolError.isInstance(outcome), String(outcome)).toBe(true);
    expect(initializes()).toBe(1);
    expect(runs('tick')).toHaveLength(0);
  });

  it('closes without waiting out a new handshake the server never answers', async () => {
    const mcp = client('/mcp', { initTimeoutMs: 10_000 });
    await mcp.connect();
    await control(server, 'forget=1&hang-init=1');
    const call = mcp.callTool('tick', {}, { timeoutMs: 30_000 }).catch((caught: unknown) => caught);
    expect(await waitFor(() => initializes() === 2)).toBe(true);
    const started = performance.now();
    await mcp.close();
    const elapsed = performance.now() - started;
    const error = await call;
    expect(McpProtocolError.isInstance(error)).toBe(true);
    expect(String(error)).toMatch(/connection is closed/);
    expect(elapsed).toBeLessThan(2000);
    expect(runs('tick')).toHaveLength(0);
    process.stdout.write(`HTTP: close during a hung re-handshake took ${elapsed.toFixed(0)} ms\n`);
  });

  it('treats a 404 to the first initialize as a connection error', async () => {
    const error = await failure(client('/gone').connect());
    expect(error.message).toContain('HTTP 404');
  });
});

describe('registerMcpTools after the server ended the session', () => {
  async function registered(mcp: McpClient) {
    const tools = new Map<string, Tool>();
    const changes: McpToolsChange[] = [];
    const waiting: ((change: McpToolsChange) => void)[] = [];
    await registerMcpTools(
      { register: (tool) => tools.set(tool.name, tool), unregister: (name) => tools.delete(name) },
      mcp,
      {
        onWarning: () => {},
        onRefresh: (change) => {
          const resolve = waiting.shift();
          if (resolve) resolve(change);
          else changes.push(change);
        },
      },
    );
    const nextChange = (): Promise<McpToolsChange> => {
      const ready = changes.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    };
    return { tools, nextChange };
  }

  it('re-lists the tools of the new session', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    const { tools, nextChange } = await registered(mcp);
    expect(tools.has('http__extra')).toBe(false);
    await control(server, 'forget=1&extra=1');
    await mcp.callTool('echo', { text: 'x' });
    expect((await nextChange()).added).toEqual(['http__extra']);
    expect(tools.has('http__extra')).toBe(true);
  });

  it('keeps following list_changed on the new session', async () => {
    const mcp = client('/mcp');
    await mcp.connect();
    const { tools, nextChange } = await registered(mcp);
    await control(server, 'forget=1');
    await mcp.callTool('echo', { text: 'x' });
    expect((await nextChange()).added).toEqual([]);
    await mcp.callTool('add_tool', {});
    expect((await nextChange()).added).toEqual(['http__extra']);
    const output = await (tools.get('http__extra') as Tool).run(
      {},
      { signal: new AbortController().signal, callId: 'c1', attempt: 1 },
    );
    expect(JSON.stringify(output)).toContain('extra ran');
  });
});
