// Compaction over a 300-turn scripted run with bulky tool output (run against the BUILT packages:
// the bench task depends on build). Each turn the model calls fetch_log, whose ~6 KB output holds
// two unique identifiers in its middle, exactly where trimming cuts. The provider counts real
// prompt tokens as 1.15 × core's estimate (so the context meter must calibrate) and rejects a
// prompt over its window with a context-overflow error, as a real API does.
// Three configurations, each run BENCH_REPEATS times (default 3), medians printed:
// - extractive: compaction with the fake model's extractive summary (keeps what it sees);
// - forgetful: compaction with a summary that keeps no identifier at all, so what survives is
//   what compaction itself carries (trim markers, the identifiers appended to summaries);
// - none: compaction off, and an unbounded provider window: the tokens that would have been sent,
//   and how many requests would have overflowed the real window.
// Every run also prices its prompts with a model of Anthropic's prompt cache
// (prompt-cache-model.mjs), with and without the adapter's moving breakpoint on the newest message.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { estimateTokens, newMessageId, ProviderError } from '@mh/core';
import { estimateMessageTokens } from '@mh/core/internal';
import { Agent, defineTool, fake } from '@mh/sdk';
import { z } from 'zod';
import { CacheModel, READ_PRICE, WRITE_PRICE } from './prompt-cache-model.mjs';

const TURNS = 300;
const WINDOW = 32_000;
const RATIO = 1.15;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const MODEL = 'bench-model';

const FILLER =
  'worker pool healthy, queue drained, cache warm, retries none, latency nominal, region eu-west\n';

/** The two identifiers of turn `n`: an invoice number and a report path with a content hash. */
function identifiersOf(n) {
  const hash = createHash('sha256').update(`turn ${n}`).digest('hex').slice(0, 10);
  return [`INV-${700_000 + n}`, `reports/q3/batch-${n}-${hash}.csv`];
}

/** ~6 KB of log, the identifiers in the middle third. */
function bulkyLog(n) {
  const [invoice, path] = identifiersOf(n);
  const half = FILLER.repeat(32);
  return `${half}settled invoice ${invoice}, exported ${path}\n${half}`;
}

const fetchLog = defineTool({
  name: 'fetch_log',
  description: 'Fetches the processing log of one batch.',
  permission: 'read',
  input: z.object({ n: z.number().int() }),
  run: async ({ n }) => bulkyLog(n),
});

const FORGETFUL_SUMMARY =
  'The assistant fetched the processing logs of the batches one by one. Every batch was processed without errors.';

/**
 * A scripted model: call fetch_log for turns 1..TURNS-1, then answer. Its usage is RATIO ×
 * core's estimate of the request (per-message estimates memoised, so a long uncompacted history
 * does not make the bench quadratic in CPU), and a prompt over `window` fails as context-overflow.
 */
class BenchProvider {
  name = 'bench';
  #window;
  #summary;
  #memo = new WeakMap();
  #fake = fake();
  turns = 0;
  prompts = [];
  summaryCalls = 0;
  summaryInputTokens = 0;
  caches = { prefix: new CacheModel(false), moving: new CacheModel(true) };

  constructor({ window, summary }) {
    this.#window = window;
    this.#summary = summary;
  }

  /** Estimates of system and tools, then of system, tools and each longer run of messages. */
  #prefixEstimates(request) {
    let sum = request.system ? estimateTokens(request.system) : 0;
    for (const tool of request.tools) {
      sum +=
        estimateTokens(tool.name) +
        estimateTokens(tool.description) +
        estimateTokens(JSON.stringify(tool.inputSchema));
    }
    const sums = [sum];
    for (const message of request.messages) {
      let tokens = this.#memo.get(message);
      if (tokens === undefined) {
        tokens = estimateMessageTokens(message);
        this.#memo.set(message, tokens);
      }
      sum += tokens;
      sums.push(sum);
    }
    return sums;
  }

  async *stream(request) {
    const sums = this.#prefixEstimates(request);
    const tokensOf = (count) => Math.ceil(sums[count] * RATIO);
    const prompt = tokensOf(request.messages.length);
    if (prompt > this.#window) {
      throw new ProviderError(`prompt is too long: ${prompt} tokens > ${this.#window}`, {
        kind: 'context-overflow',
        status: 400,
        provider: this.name,
      });
    }
    let content;
    if (request.purpose === 'summary') {
      this.summaryCalls++;
      this.summaryInputTokens += prompt;
      const text =
        this.#summary === 'forgetful' ? FORGETFUL_SUMMARY : await this.#fakeText(request);
      content = [{ type: 'text', text }];
    } else {
      this.prompts.push(prompt);
      for (const cache of Object.values(this.caches)) cache.price(request.messages, tokensOf);
      this.turns++;
      content =
        this.turns < TURNS
          ? [
              {
                type: 'tool_use',
                id: `call_${this.turns}`,
                name: 'fetch_log',
                input: { n: this.turns },
              },
            ]
          : [{ type: 'text', text: 'All batches are processed.' }];
    }
    const usage = {
      inputTokens: prompt,
      outputTokens: 20,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    const message = { id: newMessageId('msg'), role: 'assistant', content };
    yield { type: 'message-start', id: message.id, model: MODEL };
    for (const block of content) {
      if (block.type === 'text') yield { type: 'text-delta', text: block.text };
      else {
        yield { type: 'tool-call-start', id: block.id, name: block.name };
        yield { type: 'tool-call-delta', id: block.id, json: JSON.stringify(block.input) };
        yield { type: 'tool-call-end', id: block.id, name: block.name, input: block.input };
      }
    }
    yield { type: 'usage', usage };
    const stopReason = content[0].type === 'tool_use' ? 'tool-use' : 'end';
    yield { type: 'message-end', stopReason, message, usage, model: MODEL };
  }

  /** The fake model's extractive summary of the transcript. */
  async #fakeText(request) {
    for await (const event of this.#fake.stream(request)) {
      if (event.type === 'message-end')
        return event.message.content.map((block) => block.text ?? '').join('');
    }
    throw new Error('the fake model ended without a message');
  }
}

async function runOnce(config) {
  const provider = new BenchProvider({
    window: config === 'none' ? Number.POSITIVE_INFINITY : WINDOW,
    summary: config,
  });
  const agent = new Agent({
    provider,
    model: MODEL,
    tools: [fetchLog],
    system: 'You process batches. Quote invoice numbers and report paths exactly.',
    limits: { maxTurns: TURNS + 10 },
    compaction: config === 'none' ? false : { contextWindow: WINDOW },
  });
  const started = performance.now();
  const result = await agent.run(`Process batches 1 to ${TURNS - 1} and report.`);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed')
    throw new Error(`${config}: ${result.status} ${result.error?.message}`);
  if (result.turns !== TURNS)
    throw new Error(`${config}: ${result.turns} turns, expected ${TURNS}`);
  const history = JSON.stringify(result.messages);
  const ids = [];
  for (let n = 1; n < TURNS; n++) ids.push(...identifiersOf(n));
  const stages = { trim: 0, summary: 0, drop: 0, skipped: 0 };
  for (const record of result.compactions) stages[record.stage]++;
  if (provider.summaryCalls > result.compactions.length)
    throw new Error(
      `${config}: ${provider.summaryCalls} summary calls for ${result.compactions.length} compactions`,
    );
  const sent = provider.prompts.reduce((sum, tokens) => sum + tokens, 0);
  return {
    compactions: result.compactions.length,
    ...stages,
    summaryCalls: provider.summaryCalls,
    sentTurns: sent,
    sentTotal: sent + provider.summaryInputTokens,
    peak: Math.max(...provider.prompts),
    overWindow: provider.prompts.filter((tokens) => tokens > WINDOW).length,
    retained: ids.filter((id) => history.includes(id)).length,
    identifiers: ids.length,
    readPrefix: provider.caches.prefix.read / sent,
    readMoving: provider.caches.moving.read / sent,
    costPrefix: provider.caches.prefix.cost + provider.summaryInputTokens,
    costMoving: provider.caches.moving.cost + provider.summaryInputTokens,
    msPerTurn: wallMs / TURNS,
    compactionMsPerTurn:
      result.compactions.reduce((sum, record) => sum + record.durationMs, 0) / TURNS,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const CONFIGS = ['extractive', 'forgetful', 'none'];
await runOnce('extractive'); // warm-up
const runs = Object.fromEntries(CONFIGS.map((config) => [config, []]));
for (let repeat = 0; repeat < REPEATS; repeat++) {
  for (const config of CONFIGS) runs[config].push(await runOnce(config));
}
const rows = [
  [
    'compactions (trim/summary/drop/skipped)',
    (r) => `${r.compactions} (${r.trim}/${r.summary}/${r.drop}/${r.skipped})`,
  ],
  ['summary calls', (r) => r.summaryCalls],
  ['prompt tokens sent, turns', (r) => r.sentTurns.toLocaleString('en-US')],
  ['prompt tokens sent, with summary calls', (r) => r.sentTotal.toLocaleString('en-US')],
  ['peak context (real tokens)', (r) => r.peak.toLocaleString('en-US')],
  [`requests over the ${WINDOW.toLocaleString('en-US')} window`, (r) => r.overWindow],
  [
    'identifiers retained verbatim',
    (r) => `${r.retained}/${r.identifiers} (${((100 * r.retained) / r.identifiers).toFixed(1)}%)`,
  ],
  [
    'cache reads, breakpoints on system/tools/summary',
    (r) => `${(100 * r.readPrefix).toFixed(1)}%`,
  ],
  ['cache reads, + moving breakpoint', (r) => `${(100 * r.readMoving).toFixed(1)}%`],
  [
    'input cost¹, breakpoints on system/tools/summary',
    (r) => Math.round(r.costPrefix).toLocaleString('en-US'),
  ],
  ['input cost¹, + moving breakpoint', (r) => Math.round(r.costMoving).toLocaleString('en-US')],
  ['wall time per turn', (r) => `${r.msPerTurn.toFixed(2)} ms`],
  ['… of which in compaction', (r) => `${r.compactionMsPerTurn.toFixed(2)} ms`],
];
/** The median run of a configuration, field by field. */
const medianRun = (list) =>
  Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((run) => run[key]))]));
const medians = Object.fromEntries(CONFIGS.map((config) => [config, medianRun(runs[config])]));
console.log(
  `Compaction, ${TURNS} turns, ~6 KB tool output per turn, window ${WINDOW.toLocaleString('en-US')}, ` +
    `usage = ${RATIO} × estimate (medians of ${REPEATS} runs)\n`,
);
const header = [
  '',
  ...CONFIGS.map((config) =>
    config === 'none' ? 'no compaction' : `compaction, ${config} summary`,
  ),
];
const cells = rows.map(([label, format]) => [
  label,
  ...CONFIGS.map((config) => String(format(medians[config]))),
]);
const widths = header.map((title, column) =>
  Math.max(title.length, ...cells.map((row) => row[column].length)),
);
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const row of cells) console.log(line(row));
const saved = 1 - medians.extractive.sentTotal / medians.none.sentTurns;
console.log(
  `\nCompaction (extractive) sends ${(100 * saved).toFixed(1)}% fewer prompt tokens than no compaction.`,
);
console.log(
  `¹ prompt tokens priced in uncached-token equivalents: cache read ${READ_PRICE}, cache write ${WRITE_PRICE}, ` +
    'the rest and summary calls 1 (a model of Anthropic caching as our adapter drives it).',
);
