// Tracing overhead per turn: the same 1000-turn scripted run (a tool call every turn) with
// tracing off, with core's InMemoryTracer, with createTracing() (OpenTelemetry, redaction, the
// in-memory exporter) and with content capture on. Medians of several runs; run against dist:
//   pnpm --filter @mh/observability bench   (after `tsc -b`; TURNS=… REPEATS=… to change the size)
import { InMemoryTracer, runLoop, toolResult, userMessage } from '@mh/core';
import { createTracing } from '../dist/index.js';

const TURNS = Number(process.env.TURNS ?? 1000);
const REPEATS = Number(process.env.REPEATS ?? 11);

/** A provider that calls `lookup` on every turn but the last, as a real adapter streams. */
function provider() {
  let call = 0;
  return {
    name: 'bench',
    async *stream(request) {
      call++;
      const last = call >= TURNS;
      const id = `call_${call}`;
      const input = { query: `item ${call}`, page: call % 7 };
      const text = last ? 'All done.' : `Looking up item ${call}.`;
      const content = [{ type: 'text', text }];
      if (!last) content.push({ type: 'tool_use', id, name: 'lookup', input });
      const usage = {
        inputTokens: 40,
        outputTokens: 12,
        cacheReadTokens: 900,
        cacheWriteTokens: 0,
      };
      yield { type: 'message-start', id: `msg_${call}`, model: request.model };
      yield { type: 'text-delta', text };
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

/** An executor that answers each call at once, inside the loop's trace scope. */
const executor = {
  specs: () => [
    { name: 'lookup', description: 'Looks an item up.', inputSchema: { type: 'object' } },
  ],
  async *execute(calls, context) {
    for (const call of calls) {
      yield { type: 'tool-start', call };
      const run = async () => ({
        call,
        result: toolResult(call.id, `Item ${call.input.query}: 42 units in stock.`),
        status: 'ok',
        attempts: 1,
        durationMs: 0,
      });
      yield { type: 'tool-end', outcome: await (context.scope ? context.scope(call, run) : run()) };
    }
  },
};

async function once(makeTracer) {
  const { tracer, done } = makeTracer();
  const started = performance.now();
  const iterator = runLoop({
    provider: provider(),
    model: 'claude-sonnet-4-5',
    tools: executor,
    tracer,
    history: [userMessage('Look up every item.')],
    limits: { maxTurns: TURNS + 1 },
  });
  let result;
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      result = next.value;
      break;
    }
  }
  const elapsed = performance.now() - started;
  if (result.turns !== TURNS || result.status !== 'completed') throw new Error('bad run');
  const spans = await done();
  return { ms: elapsed, spans };
}

function traced(tracing) {
  const done = async () => {
    await tracing.shutdown();
    return tracing.records().length;
  };
  return { tracer: tracing.tracer, done };
}

const configs = {
  off: () => ({ tracer: undefined, done: async () => 0 }),
  'core InMemoryTracer': () => {
    const tracer = new InMemoryTracer();
    return { tracer, done: async () => tracer.records().length };
  },
  'otel + in-memory exporter': () => traced(createTracing()),
  'otel + content capture': () => traced(createTracing({ captureContent: true })),
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const samples = Object.fromEntries(Object.keys(configs).map((name) => [name, []]));
const spans = {};
for (const make of Object.values(configs)) await once(make); // warm up
const entries = Object.entries(configs);
for (let repeat = 0; repeat < REPEATS; repeat++) {
  // Interleaved, the order rotated each round, so drift in the machine's speed and one run's
  // garbage collected during the next touch every configuration alike. (A forced gc() between
  // runs shrinks the young generation and slows every run threefold, so none is forced.)
  for (let index = 0; index < entries.length; index++) {
    const [name, make] = entries[(index + repeat) % entries.length];
    const { ms, spans: count } = await once(make);
    samples[name].push(ms);
    spans[name] = count;
  }
}

const base = median(samples.off);
console.log(
  `tracing overhead: ${TURNS}-turn scripted run (tool call every turn), median of ${REPEATS}, node ${process.version}`,
);
console.log('configuration               run ms   µs/turn   overhead µs/turn   ratio   spans');
for (const name of Object.keys(configs)) {
  const ms = median(samples[name]);
  const perTurn = (ms * 1000) / TURNS;
  const overhead = ((ms - base) * 1000) / TURNS;
  console.log(
    `${name.padEnd(26)} ${ms.toFixed(1).padStart(7)} ${perTurn.toFixed(1).padStart(9)} ${overhead.toFixed(1).padStart(18)} ${(ms / base).toFixed(2).padStart(7)} ${String(spans[name]).padStart(7)}`,
  );
}
