// Loop overhead per turn with scripted() and a trivial tool, for runs of 200 and 1000 turns.
// Runs against the built packages (the bench task depends on build). Prints medians of several
// runs, and the per-turn cost of the last tenth of a run against its first tenth: a ratio near 1
// means the per-turn cost does not grow with history length.
import { performance } from 'node:perf_hooks';
import { Agent, defineTool, scripted } from '@mh/sdk';
import { z } from 'zod';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const USAGE = { inputTokens: 100, outputTokens: 10 };

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  permission: 'read',
  input: z.object({ n: z.number() }),
  run: async ({ n }) => `ok ${n}`,
});

async function runOnce(turns) {
  let turn = 0;
  const provider = scripted(
    [
      () => {
        turn++;
        return turn < turns
          ? { toolCalls: [{ name: 'noop', input: { n: turn } }], usage: USAGE }
          : { text: 'done', usage: USAGE };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
  const agent = new Agent({ provider, model: 'bench', tools: [noop], limits: { maxTurns: turns } });
  const starts = [];
  const begin = performance.now();
  for await (const event of agent.stream('go')) {
    if (event.type === 'turn-start') starts.push(performance.now());
    if (event.type === 'run-end' && event.result.status !== 'completed')
      throw new Error(event.result.status);
  }
  const total = performance.now() - begin;
  starts.push(performance.now());
  const tenth = Math.floor(turns / 10);
  const first = (starts[tenth] - starts[0]) / tenth;
  const last = (starts[turns] - starts[turns - tenth]) / tenth;
  return { perTurnUs: (total / turns) * 1000, firstUs: first * 1000, lastUs: last * 1000 };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

await runOnce(200); // warm-up
for (const turns of [200, 1000]) {
  const runs = [];
  for (let index = 0; index < REPEATS; index++) runs.push(await runOnce(turns));
  const perTurn = median(runs.map((run) => run.perTurnUs));
  const first = median(runs.map((run) => run.firstUs));
  const last = median(runs.map((run) => run.lastUs));
  console.log(
    `${String(turns).padStart(5)} turns: ${perTurn.toFixed(1)} µs/turn (median of ${REPEATS}); ` +
      `first tenth ${first.toFixed(1)} µs/turn, last tenth ${last.toFixed(1)} µs/turn, ratio ${(last / first).toFixed(2)}`,
  );
}
