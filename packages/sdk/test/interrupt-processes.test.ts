import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolResultsOf, toolResultText, validateHistory } from '@mh/core';
import { openSqliteStore } from '@mh/session-sql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * Interrupts across processes: the process that was interrupted is killed with SIGKILL, another
 * resumes; a kill while the approved call runs never makes it run twice.
 */
const WORKER = new URL('./children/approval-worker.mjs', import.meta.url).pathname;
let dir: string;
let db: string;
let effects: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-approval-'));
  db = join(dir, 's.db');
  effects = join(dir, 'effects.log');
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts the worker: the child, and its first JSON line. */
function spawnWorker(args: string[]): {
  child: ChildProcess;
  line: Promise<Record<string, unknown>>;
} {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const line = new Promise<Record<string, unknown>>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(out.slice(0, newline)));
    });
    child.stderr?.on('data', (chunk) => {
      err += String(chunk);
    });
    child.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`worker exited ${code}: ${err}`));
    });
  });
  return { child, line };
}

/** Starts the worker and waits for its first JSON line. */
async function start(args: string[]) {
  const { child, line } = spawnWorker(args);
  return { child, line: await line };
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

const charges = (): number =>
  existsSync(effects) ? readFileSync(effects, 'utf8').trim().split('\n').length : 0;

async function waitFor(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 400) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const approve = JSON.stringify([{ callId: 'c1', approve: true }]);

describe('interrupts across processes (kill -9)', () => {
  it('a pending approval outlives its process; another process resumes it and charges once', async () => {
    const first = await start(['interrupt', db, effects]);
    expect(first.line).toEqual({ status: 'interrupted', interrupts: ['c1'] });
    await killed(first.child);
    expect(charges()).toBe(0);
    const resumed = await start(['resume', db, effects, approve]);
    expect(resumed.line.status).toBe('completed');
    expect(charges()).toBe(1);
    // Approving again finds nothing waiting: the charge is never repeated.
    const again = await start(['resume', db, effects, approve]);
    expect(again.line.status).toBe('threw');
    expect(String(again.line.error)).toMatch(/ConfigError.*no call waits/);
    expect(charges()).toBe(1);
  }, 60_000);

  it('a kill while the approved call runs: the next resume reports its outcome unknown, never runs it again', async () => {
    const first = await start(['interrupt', db, effects]);
    await killed(first.child);
    const running = spawnWorker(['resume', db, effects, approve, 'slow']);
    running.line.catch(() => {}); // it is killed before it prints
    await waitFor(() => charges() === 1);
    await killed(running.child);
    const after = await start(['resume', db, effects]);
    expect(after.line.status).toBe('completed');
    expect(charges()).toBe(1);
    const store = await openSqliteStore(db);
    try {
      const { messages } = await store.load('card');
      expect(validateHistory(messages)).toEqual([]);
      const results = messages.flatMap(toolResultsOf).map(toolResultText);
      expect(results.join('\n')).toMatch(/outcome is unknown/);
    } finally {
      await store.close();
    }
  }, 60_000);
});
