import { CancelledError, McpProtocolError, ToolTimeoutError } from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpClient } from '../src/index.js';
import { fakeClient, isAlive, readLog, waitFor } from './helpers.js';

const open: McpClient[] = [];
function start(...args: Parameters<typeof fakeClient>): ReturnType<typeof fakeClient> {
  const made = fakeClient(...args);
  open.push(made.client);
  return made;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

describe('McpClient against misbehaving servers', () => {
  it('lists tools, dropping an entry whose schema is not an object schema', async () => {
    const warnings: string[] = [];
    const { client } = start('ok', { onWarning: (message) => warnings.push(message) });
    await client.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('no type');
    expect(warnings.join('\n')).toContain('no type');
  });

  it('fails a pending call at once when the server crashes mid-call, with its stderr', async () => {
    const { client } = start('ok');
    await client.connect();
    const pid = client.pid as number;
    const started = performance.now();
    const error = await client.callTool('crash', {}).catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    expect(McpProtocolError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain('simulated crash');
    // Loose, for a loaded machine: unnoticed, the exit would hold the call for its 60 s limit.
    expect(elapsed).toBeLessThan(10_000);
    process.stdout.write(`crash -> pending call failed after ${elapsed.toFixed(1)} ms\n`);
    await expect(client.callTool('echo', {})).rejects.toSatisfy(McpProtocolError.isInstance);
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  });

  it('fails the connection with a clear error on a line over the cap', async () => {
    const { client } = start('ok');
    await client.connect();
    const error = await client.callTool('big', {}).catch((caught: unknown) => caught);
    expect(McpProtocolError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain('longer than 16 MiB');
    const pid = client.pid as number;
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  });

  it('skips non-JSON stdout lines and keeps working', async () => {
    const { client } = start('garbage');
    await client.connect();
    const result = await client.callTool('echo', { text: 'still here' });
    expect(result.content[0]).toEqual({ type: 'text', text: 'still here' });
    expect(client.nonJsonLines).toBeGreaterThan(0);
  });

  it('refuses an unsupported protocol version and leaves no process behind', async () => {
    const { client, logFile } = start('bad-version');
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(McpProtocolError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/protocol version/i);
    const initialize = readLog(logFile).find((entry) => entry.method === 'initialize');
    expect(initialize).toBeDefined();
    const pid = readLog(logFile).find((entry) => 'pid' in entry)?.pid as number;
    expect(isAlive(pid)).toBe(false);
  });

  it('times out a call and sends notifications/cancelled', async () => {
    const { client, logFile } = start('ok');
    await client.connect();
    await expect(client.callTool('hang', {}, { timeoutMs: 200 })).rejects.toSatisfy(
      ToolTimeoutError.isInstance,
    );
    const call = readLog(logFile).find((entry) => entry.method === 'tools/call');
    const sawCancel = await waitFor(() =>
      readLog(logFile).some(
        (entry) =>
          entry.method === 'notifications/cancelled' &&
          (entry.params as { requestId?: unknown }).requestId === call?.id,
      ),
    );
    expect(sawCancel).toBe(true);
  });

  it('cancels a call on abort and sends notifications/cancelled', async () => {
    const { client, logFile } = start('ok');
    await client.connect();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(client.callTool('hang', {}, { signal: controller.signal })).rejects.toSatisfy(
      CancelledError.isInstance,
    );
    expect(
      await waitFor(() =>
        readLog(logFile).some((entry) => entry.method === 'notifications/cancelled'),
      ),
    ).toBe(true);
  });

  it('does not hang when a grandchild keeps stdout open, and kills the grandchild', async () => {
    const { client, logFile } = start('ok');
    await client.connect();
    const started = performance.now();
    await expect(client.callTool('grandchild', {})).rejects.toSatisfy(McpProtocolError.isInstance);
    // Loose, for a loaded machine: waiting for stdout to close (held by the grandchild) would hold
    // the call for its 60 s limit.
    expect(performance.now() - started).toBeLessThan(10_000);
    const grandchild = readLog(logFile).find((entry) => 'grandchild' in entry)
      ?.grandchild as number;
    expect(typeof grandchild).toBe('number');
    expect(await waitFor(() => !isAlive(grandchild))).toBe(true);
  });

  it('drains a flood of stderr without deadlock and shows its tail in errors', async () => {
    const { client } = start('stderr-spam');
    await client.connect();
    const result = await client.callTool('echo', { text: 'ok' }, { timeoutMs: 5000 });
    expect(result.content[0]).toEqual({ type: 'text', text: 'ok' });
    expect(client.stderrTail).toContain('last words of stderr');
    expect(client.stderrTail.length).toBeLessThanOrEqual(8192);
    const error = await client.callTool('crash', {}).catch((caught: unknown) => caught);
    expect(String((error as Error).message)).toContain('simulated crash');
  });

  it('answers a server ping and refuses other server requests with -32601', async () => {
    const { client } = start('ok');
    await client.connect();
    const result = await client.callTool('ask', {});
    const answers = JSON.parse(String(result.content[0]?.text));
    expect(answers.ping.result).toEqual({});
    expect(answers.other.error.code).toBe(-32601);
  });

  it('passes only the minimal environment plus explicit variables', async () => {
    process.env.MY_API_KEY = 'sk-test-should-not-leak';
    try {
      const { client } = start('ok', {}, { EXPLICIT_VAR: 'given' });
      await client.connect();
      const result = await client.callTool('env', {});
      const env = JSON.parse(String(result.content[0]?.text));
      expect(env.MY_API_KEY).toBeUndefined();
      expect(env.EXPLICIT_VAR).toBe('given');
      expect(env.PATH).toBe(process.env.PATH);
      const allowed = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TMPDIR', 'TEMP', 'TMP'];
      const extra = Object.keys(env).filter(
        (key) => !allowed.includes(key) && !['EXPLICIT_VAR', 'FAKE_LOG'].includes(key),
      );
      // Node itself may add nothing; anything else would be a leak.
      expect(extra).toEqual([]);
    } finally {
      delete process.env.MY_API_KEY;
    }
  });

  it('pages tools/list and stops on a repeated cursor', async () => {
    const warnings: string[] = [];
    const { client } = start('paged', { onWarning: (message) => warnings.push(message) });
    await client.connect();
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(['echo', 'add', 'env']);
    expect(warnings.join('\n')).toContain('repeated cursor');
  });

  it('kills the server on close', async () => {
    const { client } = start('ok');
    await client.connect();
    const pid = client.pid as number;
    await client.close();
    expect(isAlive(pid)).toBe(false);
    await expect(client.callTool('echo', {})).rejects.toSatisfy(McpProtocolError.isInstance);
  });
});
