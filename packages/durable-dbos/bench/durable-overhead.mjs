// What durability costs per step: the same agent on the same PostgreSQL session store, run plain
// and as a DBOS workflow (`durableAgents`, started on a queue in this process). Runs against the
// BUILT packages when MH_BENCH_PG_URL or MH_TEST_PG_URL names a server (skipped with a note
// otherwise); the store gets a schema of its own and DBOS a system database of its own.
//
// One run: a prompt, then TURNS tool turns (a scripted model calls `note`, a write tool that is not
// idempotent, once per turn), then the answer. Per turn, the agent commits the turn and journals
// the call (start, end); the durable run also takes each store call, the model call, the claim and
// the tool call as a DBOS step. Per-turn ms is (run ms − the same run with 0 turns) / TURNS.
//
// Floor, in the same process: a DBOS workflow taking as many empty steps per turn as the durable
// agent takes (counted from its recorded steps), so ours/floor shows what the agent adds beyond
// DBOS's own checkpoint writes. Median of BENCH_ROUNDS (3) rounds.
//
//   BENCH_TURNS (20), BENCH_ROUNDS (3), BENCH_RUNS (30 queued fake-model runs for the throughput row)
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableAgents, launchWorker } from '@mh/durable-dbos';
import { Agent, defineTool, scripted } from '@mh/sdk';
import { openPostgresStore } from '@mh/session-sql/postgres';
import { z } from 'zod';

const PG_URL = process.env.MH_BENCH_PG_URL ?? process.env.MH_TEST_PG_URL;
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
if (!PG_URL) {
  console.log(
    'durable-overhead: skipped (set MH_BENCH_PG_URL or MH_TEST_PG_URL to a PostgreSQL server)',
  );
  process.exit(0);
}
const tag = `${process.pid}_${Date.now().toString(36)}`;
const system = new URL(PG_URL);
system.pathname = `/mh_dbos_bench_${tag}`;
const store = await openPostgresStore({
  connectionString: PG_URL,
  schema: `mh_bench_durable_${tag}`,
});

const note = defineTool({
  name: 'note',
  description: 'Writes a note.',
  permission: 'write',
  input: z.object({ n: z.number() }),
  run: async ({ n }) => `noted ${n}`,
});
/** `turns` tool turns, then the answer. */
const provider = (turns) =>
  scripted([
    ...Array.from({ length: turns }, (_, n) => ({ toolCalls: [{ name: 'note', input: { n } }] })),
    { text: 'done' },
  ]);
const agentOptions = (turns) => ({
  provider: provider(turns),
  model: 'claude-sonnet-4-5',
  tools: [note],
  permissions: { grants: ['write'] },
});

const durable = durableAgents({
  dbos: DBOS,
  store,
  agents: Object.fromEntries(
    [0, TURNS].map((turns) => [
      `bench${turns}`,
      ({ steps, session, fencing }) =>
        new Agent({ ...agentOptions(turns), session, steps, fencing }),
    ]),
  ),
});
const emptySteps = DBOS.registerWorkflow(
  async (count) => {
    for (let i = 0; i < count; i++) await DBOS.runStep(async () => i, { name: 'empty' });
    return count;
  },
  { name: 'bench.empty' },
);
const worker = await launchWorker({
  dbos: DBOS,
  config: {
    name: 'mh-bench',
    systemDatabaseUrl: system.toString(),
    applicationVersion: 'bench',
    logLevel: 'error',
  },
  queues: { bench: { minPollingIntervalMs: 20 } },
});

let sessions = 0;
const session = () => `bench-${tag}-${++sessions}`;
const time = async (fn) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};
const plainRun = (turns) =>
  time(() => new Agent({ ...agentOptions(turns), session: { store, id: session() } }).run('go'));
let lastWorkflow;
const durableRun = (turns) =>
  time(async () => {
    const run = await durable.start(`bench${turns}`, 'go', { session: session(), queue: 'bench' });
    lastWorkflow = run.workflowId;
    await run.result({ pollingIntervalMs: 5 });
  });
const floorRun = (count) =>
  time(async () => {
    const handle = await DBOS.startWorkflow(emptySteps, { queueName: 'bench' })(count);
    await handle.getResult({ pollingIntervalMs: 5 });
  });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Warm up every path once.
await plainRun(1);
await durableRun(0);
await durableRun(TURNS);
const stepsPerRun = (await DBOS.listWorkflowSteps(lastWorkflow)).length;
await durableRun(0);
const stepsEmptyRun = (await DBOS.listWorkflowSteps(lastWorkflow)).length;
const stepsPerTurn = (stepsPerRun - stepsEmptyRun) / TURNS;
await floorRun(1);

const rows = { plain: [], durable: [], floor: [] };
for (let round = 0; round < ROUNDS; round++) {
  rows.plain.push(((await plainRun(TURNS)) - (await plainRun(0))) / TURNS);
  rows.durable.push(((await durableRun(TURNS)) - (await durableRun(0))) / TURNS);
  rows.floor.push(((await floorRun(stepsPerRun)) - (await floorRun(stepsEmptyRun))) / TURNS);
}
const plain = median(rows.plain);
const durableMs = median(rows.durable);
const floor = median(rows.floor);
console.log(
  `durable-overhead: ${TURNS} tool turns on PostgreSQL, median of ${ROUNDS}; ${stepsPerTurn} DBOS steps per turn`,
);
console.log(`  plain Agent + PostgreSQL session   ${plain.toFixed(2)} ms/turn`);
console.log(
  `  durable Agent (DBOS workflow)      ${durableMs.toFixed(2)} ms/turn   (+${(durableMs - plain).toFixed(2)} ms, ${(durableMs / plain).toFixed(2)}× plain)`,
);
console.log(
  `  floor: DBOS, ${stepsPerTurn} empty steps       ${floor.toFixed(2)} ms/turn   ours/floor ${(durableMs / floor).toFixed(2)}`,
);

// Throughput of queued one-call runs in this one worker (the 4-worker figure is in the tests).
const started = performance.now();
const runs = await Promise.all(
  Array.from({ length: RUNS }, () =>
    durable.start('bench0', 'go', { session: session(), queue: 'bench' }),
  ),
);
await Promise.all(runs.map((run) => run.result({ pollingIntervalMs: 20 })));
const seconds = (performance.now() - started) / 1000;
console.log(`  ${RUNS} queued runs, one worker, no limit: ${(RUNS / seconds).toFixed(1)} runs/s`);

await worker.stop();
await store.close();
