// Many runs on one conversation, as a chat application without a session makes them: one Agent
// (claude-sonnet-4-5, the defaults), one `add` call and an answer per run, 4 messages per run.
// The loop bench measures the turns of one run; this measures what a run costs as the
// conversation grows. Per-run ms (median of each window of BENCH_WINDOW runs, default 500) over
// BENCH_RUNS runs (default 5000, 20,000 messages), median of BENCH_REPEATS processes' worth of
// runs in this process (default 3). Floor: a hand-written loop over the same scripted model and
// tool, a plain array history appended to. Runs against the BUILT packages.
import { performance } from 'node:perf_hooks';
import { Agent, scripted } from '@mh/sdk';
import { add } from './add-tool.mjs';
import { answerCalls, modelTurn, toolSpec } from './floor.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 500);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const MODEL = 'claude-sonnet-4-5';
const USAGE = { inputTokens: 100, outputTokens: 10 };
for (const [name, value] of Object.entries({ RUNS, WINDOW, REPEATS })) {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`BENCH_${name}: expected a positive integer`);
}

/** A model that, in every run, calls `add` once and then answers. */
function provider() {
  let turn = 0;
  return scripted(
    [
      () => {
        turn++;
        return turn % 2 === 1
          ? { toolCalls: [{ name: 'add', input: { a: turn, b: 1 } }], usage: USAGE }
          : { text: `the sum is ${turn + 1}`, usage: USAGE };
      },
    ],
    { whenExhausted: 'repeat-last', recordRequests: false },
  );
}

async function ours() {
  const agent = new Agent({ provider: provider(), model: MODEL, tools: [add] });
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const result = await agent.run(`question ${run}`);
    times.push(performance.now() - start);
    if (result.status !== 'completed') throw new Error(`run ${run} ended ${result.status}`);
  }
  return times;
}

/** The floor: the same model and tool, a plain array history, nothing else. */
async function floor() {
  const model = provider();
  const tools = [toolSpec(add)];
  const signal = new AbortController().signal;
  const history = [];
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    history.push({
      id: `p${run}`,
      role: 'user',
      content: [{ type: 'text', text: `question ${run}` }],
    });
    for (let turn = 0; ; turn++) {
      const message = await modelTurn(model, { model: MODEL, messages: history, tools }, signal);
      history.push(message);
      const content = await answerCalls(add, message, signal);
      if (content.length === 0) break;
      history.push({ id: `r${run}-${turn}`, role: 'user', content });
    }
    times.push(performance.now() - start);
  }
  return times;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const mine = [];
const floors = [];
for (let repeat = 0; repeat < REPEATS; repeat++) {
  mine.push(await ours());
  floors.push(await floor());
}
console.log(
  `runs on one conversation (${MODEL}, defaults, no session), ${RUNS} runs of 4 messages, ms per run, median of ${REPEATS}:`,
);
console.log('   runs            ours     floor   ×floor');
for (let from = 0; from < RUNS; from += WINDOW) {
  const at = (runs) => median(runs.map((times) => median(times.slice(from, from + WINDOW))));
  const [a, b] = [at(mine), at(floors)];
  const label = `${from + 1}–${Math.min(RUNS, from + WINDOW)}`.padEnd(14);
  console.log(
    `   ${label}${a.toFixed(3).padStart(7)}  ${b.toFixed(3).padStart(7)}  ${(a / b).toFixed(1).padStart(7)}`,
  );
}
if (RUNS >= 2 * WINDOW) {
  const window = (runs, from) =>
    median(runs.map((times) => median(times.slice(from, from + WINDOW))));
  const last = RUNS - WINDOW;
  console.log(
    `   last/second window: ours ${(window(mine, last) / window(mine, WINDOW)).toFixed(2)}, floor ${(window(floors, last) / window(floors, WINDOW)).toFixed(2)} (flat is about 1 or below)`,
  );
}
