import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { validateHistory } from '@mh/core';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import {
  aimedKill,
  dropCutLine,
  expectedStates,
  observed,
  parseLog,
  writeOps,
} from './crash-model.js';
import { readOutcomes, startFleet, verifyFleet } from './fleet-race.js';
import { checkFile, rowCounts } from './inspect-file.js';
import { buildPackage, go, startChild } from './process-harness.js';
import { tempDir } from './turns.js';

const readLines = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0)
    : [];

beforeAll(() => {
  buildPackage();
}, 120_000);

let folder: Awaited<ReturnType<typeof tempDir>>;
let path: string;
beforeEach(async () => {
  folder = await tempDir();
  path = join(folder.dir, 'store.db');
});
afterEach(async () => {
  await folder.remove();
});

describe('SqliteSessionStore across processes', () => {
  it('gives every race between two writers exactly one winner and loses no update', async () => {
    const setup = await openSqliteStore(path);
    await setup.createSession({ id: 's' });
    await setup.close();
    const perWriter = 40;
    const logs = ['a', 'b'].map((writer) => join(folder.dir, `${writer}.log`));
    const writers = ['a', 'b'].map((writer, i) =>
      startChild('race-writer.mjs', [path, 's', writer, String(perWriter), logs[i] ?? '']),
    );
    await Promise.all(writers.map((writer) => writer.ready));
    go(writers);
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0]);

    const attempts = logs.flatMap(readLines).map((line) => JSON.parse(line));
    const wins = attempts.filter((attempt) => attempt.outcome === 'ok');
    const conflicts = attempts.filter((attempt) => attempt.outcome === 'conflict');
    const store = await openSqliteStore(path);
    const state = await store.load('s');
    await store.close();
    expect(wins).toHaveLength(2 * perWriter);
    expect(state.checkpoints).toHaveLength(2 * perWriter);
    // The winners are exactly the chain, each built on the head it loaded: one per race.
    const parentOf = new Map(state.checkpoints.map((c) => [c.id, c.parentId]));
    for (const win of wins) expect(parentOf.get(win.id)).toBe(win.expected);
    expect(new Set(wins.map((win) => win.expected)).size).toBe(wins.length);
    expect(conflicts.length).toBeGreaterThan(0);
    const wonFrom = new Set(wins.map((win) => win.expected));
    for (const conflict of conflicts) {
      expect(conflict.actual).not.toBe(conflict.expected);
      expect(wonFrom.has(conflict.expected)).toBe(true);
    }
  });

  it('gives 8 workers racing on 20 sessions for 1000 commits one winner per race, no lost update', async () => {
    const plan = { spec: path, workers: 8, sessions: 20, commits: 125, dir: folder.dir };
    const { children, logs } = await startFleet(plan, () => openSqliteStore(path));
    expect(await Promise.all(children.map((child) => child.exited))).toEqual(
      Array.from({ length: 8 }, () => 0),
    );
    const store = await openSqliteStore(path);
    const counts = await verifyFleet(
      plan,
      readOutcomes(logs),
      store,
      rowCounts(path).checkpoints ?? -1,
    );
    await store.close();
    expect(counts.ok).toBe(1000);
    expect(counts.conflict).toBeGreaterThan(0);
    expect(checkFile(path)).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
  }, 300_000);

  it('takes 100 sessions written concurrently by 4 processes into one new file', async () => {
    const writers = ['w0', 'w1', 'w2', 'w3'].map((writer) =>
      startChild('sessions-writer.mjs', [path, writer, '25', '4']),
    );
    await Promise.all(writers.map((writer) => writer.ready));
    go(writers);
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0, 0, 0]);
    const store = await openSqliteStore(path);
    const sessions = await store.listSessions();
    expect(sessions).toHaveLength(100);
    for (const session of sessions) {
      expect(session.turns).toBe(4);
      const { messages } = await store.load(session.id);
      expect(messages.map((m) => m.id)).toEqual([0, 1, 2, 3].map((t) => `user-${session.id}-${t}`));
    }
    await store.close();
    expect(checkFile(path)).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
  });
});

describe('SqliteSessionStore after kill -9', () => {
  it('reopens intact at every one of 50 kill points, aimed and random, and resumes to completion', async () => {
    const setup = await openSqliteStore(path);
    await setup.createSession({ id: 's' });
    await setup.close();
    const logPath = join(folder.dir, 'worker.log');
    const sideEffects = join(folder.dir, 'side-effects.log');
    const args = (target: number, kill?: number): string[] => [
      path,
      's',
      logPath,
      sideEffects,
      String(target),
      ...(kill === undefined ? [] : aimedKill(kill)),
    ];
    const inFlightAtKill: Record<string, number> = {};
    // Starting Node and loading kysely takes longer than a kill cycle: keep two workers warming up.
    const warm = [0, 1].map((kill) => startChild('crash-worker.mjs', args(1_000_000, kill)));
    for (let kill = 0; kill < 50; kill++) {
      const worker = warm.shift();
      if (!worker) throw new Error('no warm worker');
      warm.push(startChild('crash-worker.mjs', args(1_000_000, kill + 2)));
      await worker.ready;
      go([worker]);
      if (kill % 2 === 1) {
        await worker.printed('started');
        await sleep(Math.random() * 40);
        worker.process.kill('SIGKILL');
      }
      expect(await worker.exited).toBe('SIGKILL');

      const store = await openSqliteStore(path);
      const state = await store.load('s');
      const actual = observed(state, await store.pendingTurn('s', 'main'));
      const pending = await store.pendingTurn('s', 'main');
      await store.close();
      expect(checkFile(path)).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
      expect(state.messages).toHaveLength(2 * state.checkpoints.length);
      expect(validateHistory(state.messages)).toEqual([]);
      if (pending) expect(pending.baseHead).toBe(state.head);

      dropCutLine(logPath);
      const expected = expectedStates(parseLog(readLines(logPath).join('\n')));
      const landed = expected.with !== undefined && isDeepStrictEqual(actual, expected.with);
      if (!landed) expect(actual).toEqual(expected.without);
      const point = `${expected.inFlight?.op ?? 'between writes'}${landed ? ' (landed)' : ''}`;
      inFlightAtKill[point] = (inFlightAtKill[point] ?? 0) + 1;
      appendFileSync(logPath, `${JSON.stringify({ phase: landed ? 'landed' : 'lost' })}\n`);
      const ran = readLines(sideEffects);
      expect(new Set(ran).size).toBe(ran.length);
    }
    // The aimed kills land inside every kind of write, whatever the machine's load.
    const killedIn = new Set(Object.keys(inFlightAtKill).map((point) => point.split(' ')[0]));
    for (const op of writeOps) expect(killedIn, JSON.stringify(inFlightAtKill)).toContain(op);

    const store = await openSqliteStore(path);
    const turns = (await store.load('s')).checkpoints.length;
    await store.close();
    for (const worker of warm) worker.process.kill('SIGKILL');
    const finisher = startChild('crash-worker.mjs', args(turns + 2));
    await finisher.ready;
    go([finisher]);
    expect(await finisher.exited).toBe(0);
    const final = await openSqliteStore(path);
    const state = await final.load('s');
    expect(await final.pendingTurn('s', 'main')).toBeUndefined();
    await final.close();
    expect(state.checkpoints).toHaveLength(turns + 2);
    expect(validateHistory(state.messages)).toEqual([]);
    const ran = readLines(sideEffects);
    expect(new Set(ran).size).toBe(ran.length);
  }, 300_000);
});
