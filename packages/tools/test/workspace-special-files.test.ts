import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ToolUseBlock, toolResultText } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyToolExecutor } from '../src/policy-tool-executor.js';
import { workspaceTools } from '../src/workspace/workspace-tools.js';
import { openDescriptorsUnder } from './open-fds.js';
import { listenOnSocket, makeFifoAndDevice, releaseFifoReaders } from './special-files.js';

/**
 * FIFOs, sockets and devices inside the root (issue 15, defect 4). Opening a FIFO that has no
 * writer blocks a libuv thread in open() for good; a few such calls used to exhaust the pool so
 * that plain reads stopped answering. The tools must refuse such files at once, before reading.
 *
 * ```
 * root/notes.txt   root/pipe (FIFO)   root/sock (socket)   root/null-device (char 1,3)
 * root/tree/a.txt  root/tree/pipe     root/tree/sock       root/tree/null-device
 * ```
 */

let base: string;
let root: string;
let executor: PolicyToolExecutor;
let hasDevice = false;
const servers: Server[] = [];

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'mh-special-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'tree'), { recursive: true });
  await writeFile(path.join(root, 'notes.txt'), 'plain MARK\n');
  await writeFile(path.join(root, 'tree', 'a.txt'), 'tree MARK\n');
  for (const folder of [root, path.join(root, 'tree')]) {
    hasDevice = makeFifoAndDevice(folder).device;
    servers.push(await listenOnSocket(path.join(folder, 'sock')));
  }
  executor = new PolicyToolExecutor({ tools: workspaceTools({ root }) });
  // Child processes start slowly when the race test's swapper holds one of two cores.
}, 60_000);
afterAll(async () => {
  // Frees libuv threads a blocking open() may still hold (the code before the fix did).
  releaseFifoReaders(path.join(root, 'pipe'));
  releaseFifoReaders(path.join(root, 'tree', 'pipe'));
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(base, { recursive: true, force: true });
});

let nextId = 0;
async function call(name: string, input: Record<string, unknown>) {
  const use: ToolUseBlock = { type: 'tool_use', id: `c${nextId++}`, name, input };
  const signal = new AbortController().signal;
  for await (const event of executor.execute([use], { signal })) {
    if (event.type !== 'tool-end') continue;
    const { outcome } = event;
    const text = toolResultText(outcome.result);
    process.stdout.write(
      `${name} ${JSON.stringify(input)}: ${outcome.status} in ${outcome.durationMs} ms\n`,
    );
    return { status: outcome.status, attempts: outcome.attempts, text };
  }
  throw new Error('no outcome');
}

describe('workspace tools and special files', () => {
  it('read_file refuses a FIFO at once, in one attempt, and plain reads still answer', async () => {
    expect(await call('read_file', { path: 'pipe' })).toEqual({
      status: 'error',
      attempts: 1,
      text: 'Path refused: pipe is a named pipe (FIFO); the workspace tools read regular files and directories only.',
    });
    // More FIFO calls than libuv has threads: any that blocked would starve the reads below.
    await Promise.all(Array.from({ length: 5 }, () => call('read_file', { path: 'pipe' })));
    const reads = await Promise.all(
      Array.from({ length: 8 }, () => call('read_file', { path: 'notes.txt' })),
    );
    expect(reads.map((read) => read.text)).toEqual(Array(8).fill('plain MARK'));
  });

  it('read_file refuses a socket by name', async () => {
    const outcome = await call('read_file', { path: 'sock' });
    expect(outcome.status).toBe('error');
    expect(outcome.text).toBe(
      'Path refused: sock is a socket; the workspace tools read regular files and directories only.',
    );
  });

  it('read_file refuses a device without reading it', async (context) => {
    // mknod needs root and a filesystem without nodev.
    if (!hasDevice) context.skip();
    const outcome = await call('read_file', { path: 'null-device' });
    expect(outcome.status).toBe('error');
    expect(outcome.text).toMatch(/^Path refused: null-device is a character device; /);
  });

  it('grep and glob over a tree holding special files answer, skipping them', async () => {
    expect(await call('grep', { pattern: 'MARK', path: 'tree' })).toMatchObject({
      status: 'ok',
      text: 'tree/a.txt:1: tree MARK',
    });
    expect(await call('glob', { pattern: '**/*' })).toMatchObject({
      status: 'ok',
      text: 'notes.txt\ntree/a.txt',
    });
  });

  it('grep on a FIFO itself refuses at once', async () => {
    expect(await call('grep', { pattern: 'MARK', path: 'tree/pipe' })).toMatchObject({
      status: 'error',
      attempts: 1,
      text: 'Path refused: tree/pipe is a named pipe (FIFO); the workspace tools read regular files and directories only.',
    });
  });

  it('list_dir still names special files without opening them', async () => {
    const listed = await call('list_dir', { path: 'tree' });
    expect(listed.text.split('\n')).toEqual([
      'a.txt',
      ...(hasDevice ? ['null-device'] : []),
      'pipe',
      'sock',
    ]);
  });

  it('leaves no descriptor open under the workspace', () => {
    const open = openDescriptorsUnder(base);
    if (open === undefined) return; // No /proc here: nothing to count with.
    expect(open).toEqual([]);
  });
});
