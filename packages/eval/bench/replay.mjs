// Record and replay costs: per-request overhead of RecordingProvider (and the recording tool
// executor) over the bare provider, cassette size and load time, and replay throughput in whole
// agent runs/s (core's loop over ReplayProvider and the replaying executor, lockdown) and in
// requests/s through ReplayProvider alone (diff + serve). Medians of REPEATS rounds, interleaved.
// Run against dist:  pnpm --filter @mh/eval bench   (after `tsc -b`; RUNS, TURNS, REPEATS to change)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoop, toolResult, userMessage } from '@mh/core';
import { openCassette, readCassetteFile } from '../dist/index.js';

const RUNS = Number(process.env.RUNS ?? 40);
const TURN_COUNTS = (process.env.TURNS ?? '10,40').split(',').map(Number);
const REPEATS = Number(process.env.REPEATS ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'mh-replay-bench-'));

/** A provider that calls `lookup` on every turn but the last, streaming like an adapter. */
function provider(turns) {
  let call = 0;
  return {
    name: 'bench',
    async *stream(request) {
      call++;
      const last = call >= turns;
      const id = `call_${call}`;
      const input = { query: `item ${call}`, page: call % 7 };
      const text = last ? 'All done.' : `Looking up item ${call} for you now.`;
      const content = [{ type: 'text', text }];
      if (!last) content.push({ type: 'tool_use', id, name: 'lookup', input });
      const usage = {
        inputTokens: 40,
        outputTokens: 12,
        cacheReadTokens: 900,
        cacheWriteTokens: 0,
      };
      yield { type: 'message-start', id: `msg_${call}`, model: request.model };
      for (let at = 0; at < text.length; at += 12)
        yield { type: 'text-delta', text: text.slice(at, at + 12) };
      if (!last) {
        yield { type: 'tool-call-start', id, name: 'lookup' };
        yield { type: 'tool-call-delta', id, json: JSON.stringify(input) };
        yield { type: 'tool-call-end', id, name: 'lookup', input };
      }
      yield { type: 'usage', usage };
      const message = { id: `msg_${call}`, role: 'assistant', content };
      yield { type: 'message-end', stopReason: last ? 'end' : 'tool-use', message, usage };
    },
  };
}

/** An executor answering each call at once, inside the loop's trace scope. */
const executor = {
  specs: () => [
    {
      name: 'lookup',
      description: 'Looks an item up in the stock database.',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, page: { type: 'integer' } },
      },
    },
  ],
  async *execute(calls, context) {
    for (const call of calls) {
      yield { type: 'tool-start', call };
      const run = async () => ({
        call,
        result: toolResult(
          call.id,
          `Item ${call.input.query}: 42 units in stock, aisle 7, shelf 3.`,
        ),
        status: 'ok',
        attempts: 1,
        durationMs: 0,
      });
      yield { type: 'tool-end', outcome: await (context.scope ? context.scope(call, run) : run()) };
    }
  },
};

async function runOnce(providerOf, toolsOf, turns) {
  const iterator = runLoop({
    provider: providerOf(),
    model: 'claude-sonnet-4-5',
    system: 'You keep stock. Use lookup for every item.',
    tools: toolsOf(),
    history: [userMessage('Look up every item.')],
    limits: { maxTurns: turns + 1 },
  });
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      if (next.value.turns !== turns || next.value.status !== 'completed')
        throw new Error(`bad run: ${next.value.status} after ${next.value.turns} turns`);
      return;
    }
  }
}

const key = (run) => ({ case: `case-${run}`, repeat: 0 });

async function bare(turns) {
  const started = performance.now();
  for (let run = 0; run < RUNS; run++)
    await runOnce(
      () => provider(turns),
      () => executor,
      turns,
    );
  return performance.now() - started;
}

async function record(turns, path) {
  const started = performance.now();
  const cassette = await openCassette(path, { mode: 'record', overwrite: true });
  for (let run = 0; run < RUNS; run++) {
    await runOnce(
      () => cassette.provider(provider(turns), key(run)),
      () => cassette.tools(executor, key(run)),
      turns,
    );
  }
  await cassette.close();
  return performance.now() - started;
}

async function replayRuns(turns, path) {
  const started = performance.now();
  const cassette = await openCassette(path, { mode: 'lockdown' });
  const loaded = performance.now();
  for (let run = 0; run < RUNS; run++) {
    await runOnce(
      () => cassette.provider(undefined, key(run)),
      () => cassette.tools(executor, key(run)),
      turns,
    );
  }
  const { drifts } = await cassette.close();
  if (drifts.length > 0) throw new Error(`replay drifted: ${drifts[0].message}`);
  return { ms: performance.now() - started, loadMs: loaded - started };
}

/** Requests straight through ReplayProvider (diff + serving events), no loop. */
async function replayRequests(path, requests) {
  const cassette = await openCassette(path, { mode: 'lockdown' });
  const providers = new Map();
  const started = performance.now();
  for (const entry of requests) {
    const id = entry.case;
    if (!providers.has(id)) providers.set(id, cassette.provider(undefined, key(id.slice(5))));
    for await (const _event of providers.get(id).stream(entry.request));
  }
  const ms = performance.now() - started;
  const { drifts } = await cassette.close();
  if (drifts.length > 0) throw new Error(`replay drifted: ${drifts[0].message}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

console.log(
  `record/replay: ${RUNS} runs per cassette, core loop, one tool call per turn; median of ${REPEATS} rounds; node ${process.version}`,
);
console.log(
  'turns/run   bare µs/req   recorded µs/req   overhead µs/req   cassette KB   load ms   replay runs/s   loop req/s   provider req/s',
);
for (const turns of TURN_COUNTS) {
  const path = join(dir, `bench-${turns}.jsonl`);
  await bare(turns);
  await record(turns, path);
  await replayRuns(turns, path);
  const samples = { bare: [], record: [], replay: [], load: [], provider: [] };
  const { requests } = readCassetteFile(path);
  const steps = [
    async () => samples.bare.push(await bare(turns)),
    async () => samples.record.push(await record(turns, path)),
    async () => {
      const { ms, loadMs } = await replayRuns(turns, path);
      samples.replay.push(ms);
      samples.load.push(loadMs);
    },
    async () => samples.provider.push(await replayRequests(path, requests)),
  ];
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (let index = 0; index < steps.length; index++)
      await steps[(index + repeat) % steps.length]();
  }
  const count = RUNS * turns;
  const bareUs = (median(samples.bare) * 1000) / count;
  const recordUs = (median(samples.record) * 1000) / count;
  const replayMs = median(samples.replay);
  const row = [
    String(turns).padStart(9),
    bareUs.toFixed(1).padStart(13),
    recordUs.toFixed(1).padStart(17),
    (recordUs - bareUs).toFixed(1).padStart(17),
    (statSync(path).size / 1024).toFixed(0).padStart(13),
    median(samples.load).toFixed(1).padStart(9),
    (RUNS / (replayMs / 1000)).toFixed(0).padStart(15),
    (count / (replayMs / 1000)).toFixed(0).padStart(12),
    (count / (median(samples.provider) / 1000)).toFixed(0).padStart(16),
  ];
  console.log(row.join(' '));
}
rmSync(dir, { recursive: true, force: true });
