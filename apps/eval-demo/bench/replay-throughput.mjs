// Replay throughput of the committed cassette through the runner (sessions per second), the
// runner's own overhead per session (a one-turn agent run bare versus through EvalRunner:
// fresh tracer, check, report record), and the wall time of the CI gate as a process.
// Runs against the built app (`pnpm --filter @mh/eval-demo build` first). Medians of REPEATS runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { InMemoryTracer } from '@mh/core';
import { contains, EvalCase, EvalRunner, openCassette } from '@mh/eval';
import { scripted } from '@mh/providers';
import { Agent } from '@mh/sdk';
import { DEMO_CASES } from '../dist/demo-cases.js';
import { DEFAULT_PATHS } from '../dist/gate-args.js';
import { runCassetteSuite } from '../dist/replay-suite.js';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 400);
const GATE = fileURLToPath(new URL('../dist/gate.js', import.meta.url));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function replayOnce(concurrency) {
  const cassette = await openCassette(DEFAULT_PATHS.cassette, { mode: 'lockdown' });
  const started = performance.now();
  const report = await runCassetteSuite(cassette, DEMO_CASES, {
    repeats: 3,
    concurrency,
    progress: false,
  });
  const ms = performance.now() - started;
  await cassette.close();
  return { sessions: report.runs.length, ms };
}

const oneTurn = (tracer) =>
  new Agent({
    provider: scripted([{ text: 'ok 42' }], {
      whenExhausted: 'repeat-last',
      recordRequests: false,
    }),
    model: 'bench',
    tracer,
  });

async function bare() {
  const started = performance.now();
  for (let index = 0; index < SESSIONS; index++) {
    for await (const _event of oneTurn(new InMemoryTracer()).stream('go')) {
      // drain
    }
  }
  return (performance.now() - started) / SESSIONS;
}

async function viaRunner() {
  const cases = Array.from(
    { length: SESSIONS },
    (_, index) => new EvalCase({ name: `c${index}`, prompt: 'go', check: contains('42') }),
  );
  const started = performance.now();
  await new EvalRunner((_case, { tracer }) => oneTurn(tracer), cases, {
    repeats: 1,
    concurrency: 1,
    progress: false,
  }).run();
  return (performance.now() - started) / SESSIONS;
}

for (let index = 0; index < 2; index++) {
  await replayOnce(4);
  await bare();
  await viaRunner();
}
const replay1 = [];
const replay4 = [];
const bareMs = [];
const runnerMs = [];
for (let index = 0; index < REPEATS; index++) {
  replay1.push(await replayOnce(1));
  replay4.push(await replayOnce(4));
  bareMs.push(await bare());
  runnerMs.push(await viaRunner());
}
const rate = (runs) => median(runs.map((run) => (run.sessions / run.ms) * 1000));
console.log(
  `replay of the committed cassette (${replay4[0].sessions} sessions, ${DEMO_CASES.length} cases × 3), median of ${REPEATS}:`,
);
console.log(
  `  concurrency 1: ${rate(replay1).toFixed(0)} sessions/s (${median(replay1.map((run) => run.ms)).toFixed(0)} ms per suite)`,
);
console.log(
  `  concurrency 4: ${rate(replay4).toFixed(0)} sessions/s (${median(replay4.map((run) => run.ms)).toFixed(0)} ms per suite)`,
);
const bareMedian = median(bareMs);
const runnerMedian = median(runnerMs);
console.log(
  `runner overhead per session (one-turn agent, ${SESSIONS} sessions, concurrency 1), median of ${REPEATS}:`,
);
console.log(
  `  bare agent ${(bareMedian * 1000).toFixed(0)} µs · through EvalRunner ${(runnerMedian * 1000).toFixed(0)} µs · overhead ${((runnerMedian - bareMedian) * 1000).toFixed(0)} µs`,
);

const gateMs = [];
for (let index = 0; index < Math.min(REPEATS, 5); index++) {
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [GATE, '--report', `${DEFAULT_PATHS.report}.bench.json`],
    { encoding: 'utf8' },
  );
  gateMs.push(performance.now() - started);
  if (run.status !== 0) throw new Error(`the gate failed: ${run.stderr}`);
}
console.log(
  `CI gate as a process (node dist/gate.js, ${gateMs.length} runs): median ${median(gateMs).toFixed(0)} ms`,
);
