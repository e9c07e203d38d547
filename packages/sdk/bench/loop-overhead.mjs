// Loop overhead per turn with scripted() and a trivial tool, for runs of 200 and 1000 turns.
// Runs against the built packages (the bench task depends on build). Runs of both lengths are
// interleaved after a warm-up, with a full GC between runs. Prints medians, and the per-turn cost
// of the last quarter of a run against its second quarter (the first is JIT warm-up): a ratio near
// 1, and equal per-turn costs for 200 and 1000 turns, mean the cost does not grow with history.
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
    { whenExhausted: 'repeat-last', recordRequests: false },
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
  const quarter = Math.floor(turns / 4);
  const second = (starts[2 * quarter] - starts[quarter]) / quarter;
  const last = (starts[turns] - starts[turns - quarter]) / quarter;
  return { perTurnUs: (total / turns) * 1000, firstUs: second * 1000, lastUs: last * 1000 };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

for (let index = 0; index < 3; index++) await runOnce(1000); // warm-up
const results = { 200: [], 1000: [] };
for (let index = 0; index < REPEATS; index++) {
  for (const turns of [200, 1000]) {
    globalThis.gc?.();
    results[turns].push(await runOnce(turns));
  }
}
for (const turns of [200, 1000]) {
  const runs = results[turns];
  const perTurn = median(runs.map((run) => run.perTurnUs));
  const first = median(runs.map((run) => run.firstUs));
  const last = median(runs.map((run) => run.lastUs));
  console.log(
    `${String(turns).padStart(5)} turns: ${perTurn.toFixed(1)} µs/turn (median of ${REPEATS}); ` +
      `second quarter ${first.toFixed(1)} µs/turn, last quarter ${last.toFixed(1)} µs/turn, ratio ${(last / first).toFixed(2)}`,
  );
}
