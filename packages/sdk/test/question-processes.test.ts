import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolResultsOf, toolResultText, validateHistory } from '@mh/core';
import { openSqliteStore } from '@mh/session-sql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * A tool's questions across processes: each process that stopped on a question is killed with
 * SIGKILL and the next one answers it from the SQLite store alone; a kill while the answered call
 * runs never makes it run twice.
 */
const WORKER = new URL('./children/question-worker.mjs', import.meta.url).pathname;
let dir: string;
let db: string;
let effects: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mh-question-'));
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

async function start(args: string[]) {
  const { child, line } = spawnWorker(args);
  return { child, line: await line };
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

const transfers = (): string[] =>
  existsSync(effects)
    ? readFileSync(effects, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

async function waitFor(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 400) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const answer = (value: unknown) => JSON.stringify([{ callId: 't1', answer: value }]);

describe('questions across processes (kill -9)', () => {
  it('each question outlives its process; the answers given so far too; the transfer happens once', async () => {
    const first = await start(['interrupt', db, effects]);
    expect(first.line).toEqual({
      status: 'interrupted',
      interrupts: [
        { kind: 'question', callId: 't1', question: 'How much from savings?', answers: [] },
      ],
    });
    await killed(first.child);
    // A new process sees the question from the store alone.
    const seen = await start(['resume', db, effects]);
    expect(seen.line.interrupts).toEqual(first.line.interrupts);
    await killed(seen.child);
    const second = await start(['resume', db, effects, answer(250)]);
    expect(second.line).toEqual({
      status: 'interrupted',
      interrupts: [{ kind: 'question', callId: 't1', question: 'To whom?', answers: [250] }],
    });
    await killed(second.child);
    expect(transfers()).toEqual([]);
    const third = await start(['resume', db, effects, answer('alice')]);
    expect(third.line.status).toBe('completed');
    expect(transfers()).toEqual(['transfer 250 alice']);
    // Answering again finds nothing waiting: the transfer is never repeated.
    const again = await start(['resume', db, effects, answer('bob')]);
    expect(again.line.status).toBe('threw');
    expect(String(again.line.error)).toMatch(/ConfigError.*no call waits/);
    expect(transfers()).toEqual(['transfer 250 alice']);
  }, 60_000);

  it('a kill while the answered call runs: the next resume reports its outcome unknown, never runs it again', async () => {
    await killed((await start(['interrupt', db, effects])).child);
    await killed((await start(['resume', db, effects, answer(5)])).child);
    const running = spawnWorker(['resume', db, effects, answer('carol'), 'slow']);
    running.line.catch(() => {}); // it is killed before it prints
    await waitFor(() => transfers().length === 1);
    await killed(running.child);
    const after = await start(['resume', db, effects]);
    expect(after.line.status).toBe('completed');
    expect(transfers()).toEqual(['transfer 5 carol']);
    const store = await openSqliteStore(db);
    try {
      const { messages } = await store.load('bank');
      expect(validateHistory(messages)).toEqual([]);
      const results = messages.flatMap(toolResultsOf).map(toolResultText);
      expect(results.join('\n')).toMatch(/outcome is unknown/);
    } finally {
      await store.close();
    }
  }, 60_000);
});
