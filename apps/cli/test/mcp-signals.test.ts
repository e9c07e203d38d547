import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

// A server that ignores SIGTERM and the end of its stdin and keeps a grandchild in its process
// group: only killing the whole group ends it.
const STUBBORN = `node ${fileURLToPath(new URL('../../../packages/mcp/test/servers/fake-server.mjs', import.meta.url))} stubborn`;

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
}

/** Live (non-zombie) processes, from /proc. */
function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') found.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The pids in the process group of each server `mh` (pid `parent`) started, once both exist. */
async function serverGroup(parent: number): Promise<number[]> {
  for (let i = 0; i < 1500; i++) {
    const all = processes();
    const server = all.find((proc) => proc.ppid === parent && proc.pgrp === proc.pid);
    const group = server ? all.filter((proc) => proc.pgrp === server.pid) : [];
    if (group.length >= 2) return group.map((proc) => proc.pid);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the MCP server and its grandchild never appeared');
}

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function alive(pids: readonly number[]): number[] {
  const live = new Set(processes().map((proc) => proc.pid));
  return pids.filter((pid) => live.has(pid));
}

async function settle(pids: readonly number[]): Promise<number[]> {
  for (let i = 0; i < 100 && alive(pids).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return alive(pids);
}

describe('mh kills the process groups of its MCP servers', { timeout: 60_000 }, () => {
  it('on SIGTERM', async () => {
    const { child, done } = startCli(['--fake', '--mcp', `s=${STUBBORN}`]);
    const group = await serverGroup(child.pid as number);
    child.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(143);
    expect(await settle(group)).toEqual([]);
  });

  it('on Ctrl-C while the servers start', async () => {
    const { child, done } = startCli(['--fake', '--mcp', `s=${STUBBORN}`]);
    const group = await serverGroup(child.pid as number);
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (child.exitCode === null) child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
    expect(await settle(group)).toEqual([]);
  });

  it('on Ctrl-C twice in the REPL, after an answer', async () => {
    const { child, output, done } = startCli(['--fake', '--mcp', `s=${STUBBORN}`]);
    const group = await serverGroup(child.pid as number);
    child.stdin.write('What is 6*7?\n');
    await waitFor(
      () => output.stdout.includes('42'),
      30_000,
      () => output.stderr,
    );
    child.kill('SIGINT');
    await waitFor(
      () => output.stderr.includes('press Ctrl-C again'),
      10_000,
      () => output.stderr,
    );
    child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
    expect(await settle(group)).toEqual([]);
  });

  it('on a normal exit, even when the server ignores stdin EOF and SIGTERM', async () => {
    const { child, done } = startCli(['--fake', '--mcp', `s=${STUBBORN}`, 'What is 6*7?']);
    const group = await serverGroup(child.pid as number);
    child.stdin.end();
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('42');
    expect(await settle(group)).toEqual([]);
  });

  it('accepts --mcp NAME=URL and reports a server it cannot reach in one line', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const run = await runCli(['--fake', '--mcp', `api=${url}`, '--list-tools']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`mh: MCP server api: cannot connect to ${url} (connection refused)\n`);
    const bad = await runCli(['--fake', '--mcp', `api=${url} extra`, 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected one http:// or https:// URL');
  });
});
