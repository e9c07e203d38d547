import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import { SessionConflictError, type SessionStore } from '@mh/core';
import { ScriptedProvider } from '@mh/core/testing';
import { Agent } from '@mh/sdk';
import { openPostgresStore } from '@mh/session-sql/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueRun, sendDecisions, waitingCalls } from '../src/client.js';
import { ModelServer } from './support/model-server.js';
import {
  buildWorkerPackages,
  sideEffects,
  spawnWorker,
  until,
  type WorkerChild,
  type WorkerJob,
} from './support/workers.js';

/**
 * Durable runs across real worker processes on the CI PostgreSQL, with no mock of DBOS: workers
 * are killed with SIGKILL mid-model-call, mid-tool and between steps; another worker takes each
 * run over. The tools log each run to a side file and the loopback model server counts each call.
 * Runs when MH_TEST_PG_URL names a server; MH_REQUIRE_POSTGRES=1 makes a missing URL a failure.
 */
const pgUrl = process.env.MH_TEST_PG_URL;
const pgRequired = process.env.MH_REQUIRE_POSTGRES === '1';
const KILLS_PER_PHASE = Number(process.env.MH_DURABLE_KILLS ?? 10);
const RUNS = Number(process.env.MH_DURABLE_RUNS ?? 200);

const suffix = `${process.pid}_${Date.now().toString(36)}`;
const dir = mkdtempSync(join(tmpdir(), 'mh-durable-'));
let server: ModelServer;
let client: DBOSClient;
let store: SessionStore;
let job: WorkerJob;
const workers: WorkerChild[] = [];

function systemUrlOf(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/mh_dbos_${suffix}`;
  return parsed.toString();
}

async function launch(extra: Partial<WorkerJob> = {}): Promise<WorkerChild> {
  const worker = spawnWorker({ ...job, ...extra });
  workers.push(worker);
  await worker.ready;
  return worker;
}

const live = (): WorkerChild[] =>
  workers.filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null);

describe.skipIf(pgUrl === undefined && !pgRequired)('durable runs across worker processes', () => {
  beforeAll(async () => {
    if (pgUrl === undefined) throw new Error('MH_REQUIRE_POSTGRES=1 but MH_TEST_PG_URL is unset');
    buildWorkerPackages();
    server = new ModelServer();
    const modelUrl = await server.start();
    const storeSchema = `mh_durable_${suffix}`;
    store = await openPostgresStore({ connectionString: pgUrl, schema: storeSchema });
    job = {
      systemUrl: systemUrlOf(pgUrl),
      storeUrl: pgUrl,
      storeSchema,
      modelUrl,
      sideFile: join(dir, 'side-effects.log'),
      queueLimits: { minPollingIntervalMs: 50 },
      recoveryIntervalMs: 200,
    };
    // The first worker creates the system database; the client needs it.
    await launch();
    client = await DBOSClient.create({ systemDatabaseUrl: job.systemUrl });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    await client?.destroy();
    await store?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const phases = ['model', 'tool', 'between'] as const;
  const takeovers: Record<(typeof phases)[number], number[]> = { model: [], tool: [], between: [] };

  it(`recovers a run on another worker after kill -9 mid-model-call, mid-tool and between steps (${3 * KILLS_PER_PHASE} kills)`, async () => {
    if (live().length < 2) await launch();
    for (let n = 0; n < phases.length * KILLS_PER_PHASE; n++) {
      const phase = phases[n % phases.length] as (typeof phases)[number];
      const run = `k${n}`;
      const held = phase === 'model' ? server.hold(`${run}#1`) : undefined;
      const started = await enqueueRun(client, {
        agent: 'support',
        prompt: `run ${run} plain`,
        session: `session-${run}`,
        queue: 'agents',
      });
      // Wait for the phase, and find the worker that is in it.
      let victimPid: string;
      if (held) {
        await held.arrived;
        victimPid =
          server.requests.filter((request) => request.key === `${run}#1`).at(-1)?.worker ?? '';
      } else {
        const marker = phase === 'tool' ? `start call_${run}_1_1 ` : `end call_${run}_0_0 `;
        await until(
          () => sideEffects(job.sideFile).some((line) => line.startsWith(marker)),
          30_000,
          marker,
        );
        const line = sideEffects(job.sideFile).find((entry) => entry.startsWith(marker)) ?? '';
        victimPid = line.split(' ')[2] ?? '';
      }
      const victim = live().find((worker) => String(worker.pid) === victimPid);
      expect(victim, `${run}: the worker in phase ${phase}`).toBeDefined();
      await victim?.kill();
      const killedAt = Date.now();
      held?.release();
      const before = server.requests.length;
      // A replacement joins for the next round while the survivor takes the run over.
      const replacement = launch();
      await until(
        () => server.requests.slice(before).some((request) => request.run === run),
        60_000,
        `${run} to continue`,
      );
      takeovers[phase].push(Date.now() - killedAt);
      const result = await started.result();
      await replacement;
      expect(result.status, run).toBe('completed');
      expect(result.text, run).toBe(`done ${run}`);
      const effects = sideEffects(job.sideFile);
      for (const call of [`call_${run}_0_0`, `call_${run}_1_1`]) {
        // Each non-idempotent save ran exactly once: never again after the kill.
        expect(
          effects.filter((line) => line.startsWith(`start ${call} `)),
          `${run} ${call}`,
        ).toHaveLength(1);
      }
      expect(
        server.finishedTwice().filter((key) => key.startsWith(`${run}#`)),
        run,
      ).toEqual([]);
      const stored = await store.load(`session-${run}`);
      expect(JSON.stringify(stored.messages.at(-1)), run).toContain(`done ${run}`);
    }
    const median = (values: number[]): number =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    process.stdout.write(
      `durable takeover after kill -9, median ms: model ${median(takeovers.model)}, tool ${median(takeovers.tool)}, between ${median(takeovers.between)}\n`,
    );
  }, 600_000);

  it('wakes a parked run with a decision sent from a third process, after the worker holding it died', async () => {
    while (live().length < 2) await launch();
    const run = 'approval';
    const started = await enqueueRun(client, {
      agent: 'support',
      prompt: `run ${run} approve`,
      session: `session-${run}`,
      queue: 'agents',
    });
    const waiting = await waitingCalls(client, started.workflowId, 60);
    expect(waiting?.map((interrupt) => interrupt.tool)).toEqual(['save']);
    const parkedOn = server.requests.filter((request) => request.run === run).at(-1)?.worker;
    await live()
      .find((worker) => String(worker.pid) === parkedOn)
      ?.kill();
    await sendDecisions(client, started.workflowId, [
      { callId: waiting?.[0]?.callId ?? '', approve: true },
    ]);
    const result = await started.result();
    expect(result.status).toBe('completed');
    expect(
      sideEffects(job.sideFile).filter((line) => line.startsWith(`start call_${run}_0_0 `)),
    ).toHaveLength(1);
  }, 120_000);

  it('ends a parked run whose turn another process finished on the session, instead of waiting on', async () => {
    while (live().length < 1) await launch();
    const run = 'elsewhere';
    const started = await enqueueRun(client, {
      agent: 'support',
      prompt: `run ${run} approve`,
      session: `session-${run}`,
      queue: 'agents',
    });
    const [waiting] = (await waitingCalls(client, started.workflowId, 60)) ?? [];
    expect(waiting?.tool).toBe('save');
    // Another process answers the call straight on the session (a plain agent, not the run).
    const other = new Agent({
      provider: new ScriptedProvider([{ text: 'handled elsewhere' }]),
      model: 'm',
      session: { store, id: `session-${run}` },
    });
    expect(
      (await other.resume({ decisions: [{ callId: waiting?.callId ?? '', approve: false }] }))
        ?.status,
    ).toBe('completed');
    // The run's own decision is now refused, and the run ends: nothing waits on its session.
    await sendDecisions(client, started.workflowId, [
      { callId: waiting?.callId ?? '', approve: true },
    ]);
    // It ends (before: it parked again for days): interrupted when its agent finds nothing waiting,
    // or an error naming the conflict when its own view of the session had gone stale.
    const result = await started.result();
    expect(
      result.status === 'interrupted' ||
        (result.status === 'error' && SessionConflictError.isInstance(result.error)),
    ).toBe(true);
    expect(
      sideEffects(job.sideFile).some((line) => line.startsWith(`start ${waiting?.callId} `)),
    ).toBe(false);
  }, 120_000);

  it('refuses a second run on a session while one is queued or running', async () => {
    while (live().length < 1) await launch();
    const run = 'dedup';
    const held = server.hold(`${run}#0`);
    const first = await enqueueRun(client, {
      agent: 'support',
      prompt: `run ${run} fast`,
      session: `session-${run}`,
      queue: 'agents',
    });
    await held.arrived;
    await expect(
      enqueueRun(client, {
        agent: 'support',
        prompt: `run ${run}-again fast`,
        session: `session-${run}`,
        queue: 'agents',
      }),
    ).rejects.toMatchObject({ name: 'DBOSQueueDuplicatedError' });
    held.release();
    expect((await first.result()).status).toBe('completed');
    // Once it ended, the session takes the next run.
    const next = await enqueueRun(client, {
      agent: 'support',
      prompt: `run ${run}-next fast`,
      session: `session-${run}`,
      queue: 'agents',
    });
    expect((await next.result()).text).toBe(`done ${run}-next`);
  }, 60_000);

  it('stops a worker whose lease connection broke, and another worker takes its run over', async () => {
    while (live().length < 2) await launch();
    const run = 'lease';
    const held = server.hold(`${run}#1`);
    const started = await enqueueRun(client, {
      agent: 'support',
      prompt: `run ${run} plain`,
      session: `session-${run}`,
      queue: 'agents',
    });
    await held.arrived;
    const holder = server.requests.filter((request) => request.key === `${run}#1`).at(-1)?.worker;
    const victim = live().find((worker) => String(worker.pid) === holder);
    expect(victim).toBeDefined();
    // The server drops the lease's connection (a network cut, a failover): the worker cannot tell
    // that from its own death as the others see it, so it shuts DBOS down.
    const admin = new pg.Client({ connectionString: job.systemUrl });
    await admin.connect();
    try {
      const ended = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1',
        [`mh-lease:mh-%-${victim?.pid}-%`],
      );
      expect(ended.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    held.release();
    const result = await started.result();
    expect(result.status).toBe('completed');
    await until(
      () => (victim?.stderr() ?? '').includes('lost the lease of executor'),
      10_000,
      'the lease loss',
    );
    const effects = sideEffects(job.sideFile);
    expect(effects.filter((line) => line.startsWith(`start call_${run}_0_0 `))).toHaveLength(1);
    expect(
      effects.filter((line) => line.startsWith(`start call_${run}_1_1 `)).length,
    ).toBeLessThanOrEqual(1);
  }, 120_000);

  it('spreads 200 queued runs over 4 workers: each completes once, the queue limit is never exceeded', async () => {
    for (const worker of live()) await worker.kill();
    const queues = {
      agents: { minPollingIntervalMs: 50 },
      limited: { globalConcurrency: 3, minPollingIntervalMs: 50 },
    };
    await Promise.all(Array.from({ length: 4 }, () => launch({ queues })));
    server.maxActive = 0;
    const before = server.requests.length;
    const startedAt = Date.now();
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, n) =>
        enqueueRun(client, {
          agent: 'support',
          prompt: `run q${n} queued`,
          session: `session-q${n}`,
          queue: 'limited',
        }),
      ),
    );
    const results = await Promise.all(runs.map((run) => run.result()));
    const seconds = (Date.now() - startedAt) / 1000;
    expect(results.filter((result) => result.status === 'completed')).toHaveLength(RUNS);
    const answered = server.requests.slice(before).filter((request) => request.finished);
    // Every run's one model call was answered exactly once, on one of the four workers.
    expect(new Set(answered.map((request) => request.key)).size).toBe(RUNS);
    expect(answered).toHaveLength(RUNS);
    const byWorker = new Set(answered.map((request) => request.worker));
    expect(byWorker.size).toBeGreaterThan(1);
    expect(server.maxActive).toBeLessThanOrEqual(3);
    expect(server.maxActive).toBe(3);
    process.stdout.write(
      `durable queue: ${RUNS} runs on 4 workers (limit 3) in ${seconds.toFixed(1)} s, ${(RUNS / seconds).toFixed(1)} runs/s, ${byWorker.size} workers took runs, max active ${server.maxActive}\n`,
    );
  }, 300_000);
});
