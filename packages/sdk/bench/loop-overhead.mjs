// Loop overhead per turn: one `add` tool, a scripted model that calls it once per turn for N turns
// and then answers (the scenario of issue 16). Runs against the BUILT packages (the bench task
// depends on build). Four setups run interleaved in one process, after a warm-up, with a full GC
// between runs:
// - defaults: `Agent` with a model the table lists (claude-sonnet-4-5): compaction armed and the
//   fencing of tool results on — what a user gets;
// - off: the same `Agent` with compaction and fencing turned off;
// - runLoop: core's `runLoop` alone, with a `PolicyToolExecutor`;
// - floor: a hand-written loop calling the same scripted provider and the same tool, with a plain
//   array history.
// For N=1000 it prints per-turn medians of BENCH_REPEATS runs (default 5), each setup's ratio to
// the floor, and the median last/first decile ratio (per-turn cost of the last tenth of the turns
// over the first tenth: near 1 means the cost does not grow with the history), whole and trimmed. Then one 10k-turn
// run of each setup (BENCH_LONG=0 skips it, BENCH_LONG_SETUPS=off,floor picks some) to show flatness, and the peak RSS over baseline of
// 1000 turns, each setup in its own child process (median of BENCH_RSS_REPEATS, default 3).
// The model reports a constant usage, so compaction stays armed but never fires.
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runLoop } from '@mh/core';
import { Agent, PolicyToolExecutor, scripted } from '@mh/sdk';
import { add } from './add-tool.mjs';
import { answerCalls, modelTurn, toolSpec } from './floor.mjs';

const N = 1000;
const LONG = 10_000;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const RSS_REPEATS = Number(process.env.BENCH_RSS_REPEATS ?? 3);
const MODEL = 'claude-sonnet-4-5';
const USAGE = { inputTokens: 100, outputTokens: 10 };

/** The scripted model of one run: `add` on turns 1..turns-1, then an answer. */
function provider(turns) {
  let turn = 0;
  return scripted(
    [
      () => {
        turn++;
        return turn < turns
          ? { toolCalls: [{ name: 'add', input: { a: turn, b: 1 } }], usage: USAGE }
          : { text: 'done', usage: USAGE };
      },
    ],
    { whenExhausted: 'repeat-last', recordRequests: false },
  );
}

/** Consumes a run's events, timing each turn start; returns the turn-start times. */
async function timeEvents(events, turns) {
  const starts = [];
  for await (const event of events) {
    if (event.type === 'turn-start') starts.push(performance.now());
    if (event.type === 'run-end' && event.result.status !== 'completed')
      throw new Error(`run ended ${event.result.status}`);
  }
  if (starts.length !== turns) throw new Error(`${starts.length} turns, expected ${turns}`);
  return starts;
}

const SETUPS = {
  defaults: (turns) =>
    timeEvents(
      new Agent({
        provider: provider(turns),
        model: MODEL,
        tools: [add],
        limits: { maxTurns: turns },
      }).stream('go'),
      turns,
    ),
  off: (turns) =>
    timeEvents(
      new Agent({
        provider: provider(turns),
        model: MODEL,
        tools: [add],
        limits: { maxTurns: turns },
        compaction: false,
        fencing: false,
      }).stream('go'),
      turns,
    ),
  runLoop: (turns) =>
    timeEvents(
      runLoop({
        provider: provider(turns),
        model: MODEL,
        history: [{ id: 'prompt', role: 'user', content: [{ type: 'text', text: 'go' }] }],
        tools: new PolicyToolExecutor({ tools: [add] }),
        limits: { maxTurns: turns },
      }),
      turns,
    ),
  floor: floor,
};

/** The hand-written loop: the same provider and tool, a plain array history, nothing else. */
async function floor(turns) {
  const model = provider(turns);
  const tools = [toolSpec(add)];
  const history = [{ id: 'prompt', role: 'user', content: [{ type: 'text', text: 'go' }] }];
  const signal = new AbortController().signal;
  const starts = [];
  for (let turn = 1; ; turn++) {
    starts.push(performance.now());
    const message = await modelTurn(model, { model: MODEL, messages: history, tools }, signal);
    history.push(message);
    const content = await answerCalls(add, message, signal);
    if (content.length === 0) break;
    history.push({ id: `r${turn}`, role: 'user', content });
  }
  if (starts.length !== turns) throw new Error(`floor: ${starts.length} turns`);
  return starts;
}

/**
 * Per-turn µs of a whole run, and the last/first decile ratio of its per-turn cost: of the whole
 * deciles, and trimmed (each decile's mean without its slowest tenth of turns), which a cost that
 * grows with the history moves as much but one preemption by another process on a shared machine
 * (a 10 ms stall in a 2 ms decile) does not.
 */
async function measure(setup, turns) {
  const begin = performance.now();
  const starts = await SETUPS[setup](turns);
  const total = performance.now() - begin;
  starts.push(begin + total);
  const decile = Math.floor(turns / 10);
  const span = (from) => starts[from + decile] - starts[from];
  const trimmed = (from) => {
    const times = [];
    for (let index = from; index < from + decile; index++)
      times.push(starts[index + 1] - starts[index]);
    times.sort((a, b) => a - b);
    const kept = times.slice(0, Math.ceil(times.length * 0.9));
    return kept.reduce((sum, time) => sum + time, 0) / kept.length;
  };
  return {
    perTurnUs: (total / turns) * 1000,
    deciles: span(turns - decile) / span(0),
    trimmedDeciles: trimmed(turns - decile) / trimmed(0),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const fmt = (value, digits = 1) => value.toFixed(digits).padStart(8);

/** In a child process: peak RSS over the baseline (modules loaded, after a GC) of one run. */
async function rssChild(setup) {
  globalThis.gc?.();
  const baseline = process.resourceUsage().maxRSS;
  await SETUPS[setup](N);
  process.stdout.write(String((process.resourceUsage().maxRSS - baseline) / 1024));
}

async function main() {
  const names = Object.keys(SETUPS);
  for (let index = 0; index < 2; index++) for (const name of names) await measure(name, N);
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let index = 0; index < REPEATS; index++) {
    for (const name of names) {
      globalThis.gc?.();
      runs[name].push(await measure(name, N));
    }
  }
  const floorUs = median(runs.floor.map((run) => run.perTurnUs));
  console.log(`loop overhead, N=${N}, median of ${REPEATS} (model ${MODEL}):`);
  console.log('  setup        µs/turn    ×floor  last/first decile  (trimmed)');
  for (const name of names) {
    const perTurn = median(runs[name].map((run) => run.perTurnUs));
    const deciles = median(runs[name].map((run) => run.deciles));
    const trimmed = median(runs[name].map((run) => run.trimmedDeciles));
    console.log(
      `  ${name.padEnd(9)}${fmt(perTurn)}  ${fmt(perTurn / floorUs, 1)}  ${fmt(deciles, 2)}           ${fmt(trimmed, 2)}`,
    );
  }
  if (process.env.BENCH_LONG !== '0') {
    console.log(`flatness, one run of N=${LONG}:`);
    const long = process.env.BENCH_LONG_SETUPS?.split(',') ?? names;
    for (const name of long) {
      globalThis.gc?.();
      const run = await measure(name, LONG);
      console.log(
        `  ${name.padEnd(9)}${fmt(run.perTurnUs)} µs/turn, last/first decile ${run.deciles.toFixed(2)} (trimmed ${run.trimmedDeciles.toFixed(2)})`,
      );
    }
  }
  console.log(`peak RSS over baseline, N=${N}, median of ${RSS_REPEATS} processes:`);
  const self = fileURLToPath(import.meta.url);
  for (const name of names) {
    const mb = [];
    for (let index = 0; index < RSS_REPEATS; index++) {
      const out = execFileSync(process.execPath, ['--expose-gc', self, '--rss', name]);
      mb.push(Number(out.toString()));
    }
    console.log(`  ${name.padEnd(9)}${fmt(median(mb))} MB`);
  }
  console.log(`load average: ${(await import('node:os')).loadavg().map((v) => v.toFixed(2))}`);
}

if (process.argv[2] === '--rss') await rssChild(process.argv[3]);
else await main();
