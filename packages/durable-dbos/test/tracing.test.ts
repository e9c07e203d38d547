import { DBOS } from '@dbos-inc/dbos-sdk';
import type { SessionStore, SpanRecord } from '@mh/core';
import { ScriptedProvider } from '@mh/core/testing';
import { createTracing } from '@mh/observability';
import { Agent, defineTool } from '@mh/sdk';
import { openPostgresStore } from '@mh/session-sql/postgres';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { durableAgents } from '../src/durable-agents.js';
import { launchWorker, type Worker } from '../src/worker.js';

/**
 * One tracer for DBOS's spans and ours (the global OpenTelemetry provider, with async context):
 * the workflow's span holds the run's `mh.run` tree, and each step's span nests under the
 * `mh.model` or `mh.tool` span of its call. In this process: DBOS is launched once per process.
 */
const pgUrl = process.env.MH_TEST_PG_URL;
const pgRequired = process.env.MH_REQUIRE_POSTGRES === '1';
const suffix = `${process.pid}_${Date.now().toString(36)}`;

describe.skipIf(pgUrl === undefined && !pgRequired)('durable runs in one trace', () => {
  const tracing = createTracing();
  let store: SessionStore;
  let worker: Worker;
  let durable: ReturnType<typeof durableAgents>;

  beforeAll(async () => {
    if (pgUrl === undefined) throw new Error('MH_REQUIRE_POSTGRES=1 but MH_TEST_PG_URL is unset');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(tracing.provider);
    store = await openPostgresStore({ connectionString: pgUrl, schema: `mh_trace_${suffix}` });
    const save = defineTool({
      name: 'save',
      description: 'saves',
      permission: 'write',
      input: z.object({}),
      run: async () => 'saved',
    });
    durable = durableAgents({
      dbos: DBOS,
      store,
      agents: {
        traced: ({ steps, session, fencing }) =>
          new Agent({
            provider: new ScriptedProvider([
              { toolCalls: [{ id: 'c1', name: 'save' }] },
              { text: 'done' },
            ]),
            model: 'm',
            tools: [save],
            permissions: { grants: ['write'] },
            tracer: tracing.tracer,
            session,
            steps,
            fencing,
          }),
      },
    });
    const system = new URL(pgUrl);
    system.pathname = `/mh_dbos_trace_${suffix}`;
    worker = await launchWorker({
      dbos: DBOS,
      config: {
        name: 'mh-trace-test',
        systemDatabaseUrl: system.toString(),
        applicationVersion: 'trace',
        logLevel: 'error',
        tracingEnabled: true,
      },
      queues: { traced: { minPollingIntervalMs: 20 } },
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await store?.close();
    await tracing.shutdown();
    context.disable();
    trace.disable();
  });

  it('nests mh.run under the workflow, model steps under mh.model and tool steps under mh.tool', async () => {
    const run = await durable.start('traced', 'go', { session: `s-${suffix}`, queue: 'traced' });
    expect((await run.result()).status).toBe('completed');
    const records = tracing.records();
    const byId = new Map(records.map((record) => [record.spanId, record]));
    const parent = (record: SpanRecord | undefined): SpanRecord | undefined =>
      record?.parentSpanId ? byId.get(record.parentSpanId) : undefined;
    const runSpan = records.find((record) => record.name === 'mh.run');
    expect(runSpan).toBeDefined();
    // The workflow's own span is the run's parent (DBOS names it after the workflow).
    expect(parent(runSpan)?.name).toBe('mh.agent.traced');
    const stepsNamed = (name: string): SpanRecord[] =>
      records.filter((record) => record.name === name);
    expect(stepsNamed('model').map((step) => parent(step)?.name)).toEqual(['mh.model', 'mh.model']);
    expect(stepsNamed('claim:save').map((step) => parent(step)?.name)).toEqual(['mh.tool']);
    expect(stepsNamed('tool:save').map((step) => parent(step)?.name)).toEqual(['mh.tool']);
    // One trace, but for DBOS's start-up check that context propagation works (its `probe`).
    const traced = records.filter((record) => record.name !== 'probe');
    expect(new Set(traced.map((record) => record.traceId)).size).toBe(1);
    // A durable run commits each turn as its own store step (it holds no tool turn back).
    expect(stepsNamed('store:commitTurns')).toHaveLength(0);
    expect(stepsNamed('store:commit').length).toBeGreaterThanOrEqual(3);
    expect(traced.length).toBeGreaterThan(15);
  }, 60_000);
});
