import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { validateHistory } from '@mh/core';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { openPostgresStore } from '../src/postgres/index.js';
import {
  aimedKill,
  dropCutLine,
  expectedStates,
  observed,
  parseLog,
  writeOps,
} from './crash-model.js';
import { readOutcomes, startFleet, verifyFleet } from './fleet-race.js';
import { openTransactions, postgresRowCounts } from './postgres-inspect.js';
import { describePostgres } from './postgres-target.js';
import { buildPackage, go, startChild } from './process-harness.js';
import { createDatabase, dropDatabase } from './support/throwaway-postgres.mjs';
import { tempDir } from './turns.js';

const readLines = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0)
    : [];

describePostgres('PostgresSessionStore across processes', (postgres) => {
  beforeAll(() => {
    buildPackage();
  }, 120_000);

  let folder: Awaited<ReturnType<typeof tempDir>>;
  let url: string;
  beforeEach(async () => {
    folder = await tempDir();
    url = await createDatabase(postgres().serverUrl);
  });
  afterEach(async () => {
    await dropDatabase(url);
    await folder.remove();
  });

  it('gives 8 workers racing on 20 sessions for 1000 commits one winner per race, no lost update', async () => {
    const plan = { spec: url, workers: 8, sessions: 20, commits: 125, dir: folder.dir };
    const open = () => openPostgresStore({ connectionString: url });
    const { children, logs } = await startFleet(plan, open);
    expect(await Promise.all(children.map((child) => child.exited))).toEqual(
      Array.from({ length: 8 }, () => 0),
    );
    const store = await open();
    const rows = await postgresRowCounts(url);
    const counts = await verifyFleet(plan, readOutcomes(logs), store, rows.checkpoints ?? -1);
    await store.close();
    expect(counts.ok).toBe(1000);
    expect(counts.conflict).toBeGreaterThan(0);
    expect(counts.unavailable).toBeUndefined();
  }, 300_000);

  it('stays consistent and resumable after 40 SIGKILLs of a writer, inside and between transactions', async () => {
    const setup = await openPostgresStore({ connectionString: url });
    await setup.createSession({ id: 's' });
    await setup.close();
    const logPath = join(folder.dir, 'worker.log');
    const sideEffects = join(folder.dir, 'side-effects.log');
    // Even kills: the worker kills itself right after an early SQL statement of one kind of write
    // (inside its transaction, or just after its COMMIT). Odd kills: the parent kills it after a
    // random delay.
    const args = (target: number, kill: number): string[] => [
      url,
      's',
      logPath,
      sideEffects,
      String(target),
      ...aimedKill(kill),
    ];
    const inFlightAtKill: Record<string, number> = {};
    const warm = [0, 1].map((kill) => startChild('crash-worker.mjs', args(1_000_000, kill)));
    for (let kill = 0; kill < 40; kill++) {
      const worker = warm.shift();
      if (!worker) throw new Error('no warm worker');
      warm.push(startChild('crash-worker.mjs', args(1_000_000, kill + 2)));
      await worker.ready;
      go([worker]);
      if (kill % 2 === 1) {
        await worker.printed('started');
        await sleep(Math.random() * 60);
        worker.process.kill('SIGKILL');
      }
      expect(await worker.exited).toBe('SIGKILL');

      const store = await openPostgresStore({ connectionString: url });
      const state = await store.load('s');
      const pending = await store.pendingTurn('s', 'main');
      await store.close();
      const actual = observed(state, pending);
      expect(state.messages).toHaveLength(2 * state.checkpoints.length);
      expect(validateHistory(state.messages)).toEqual([]);
      if (pending) expect(pending.baseHead).toBe(state.head);
      // The killed transaction left nothing behind: no checkpoint off the chain, no open session.
      expect((await postgresRowCounts(url)).checkpoints).toBe(state.checkpoints.length);
      for (let wait = 0; (await openTransactions(url)) > 0; wait++) {
        expect(wait, 'a killed writer’s transaction stayed open').toBeLessThan(100);
        await sleep(50);
      }

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
    const killedIn = new Set(Object.keys(inFlightAtKill).map((point) => point.split(' ')[0]));
    for (const op of writeOps) expect(killedIn, JSON.stringify(inFlightAtKill)).toContain(op);

    const store = await openPostgresStore({ connectionString: url });
    const turns = (await store.load('s')).checkpoints.length;
    await store.close();
    for (const worker of warm) worker.process.kill('SIGKILL');
    await Promise.all(warm.map((worker) => worker.exited));
    const finisher = startChild('crash-worker.mjs', [
      url,
      's',
      logPath,
      sideEffects,
      String(turns + 2),
    ]);
    await finisher.ready;
    go([finisher]);
    expect(await finisher.exited).toBe(0);
    const final = await openPostgresStore({ connectionString: url });
    const state = await final.load('s');
    expect(await final.pendingTurn('s', 'main')).toBeUndefined();
    await final.close();
    expect(state.checkpoints).toHaveLength(turns + 2);
    expect(validateHistory(state.messages)).toEqual([]);
    const ran = readLines(sideEffects);
    expect(new Set(ran).size).toBe(ran.length);
  }, 300_000);
});
