import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { TimedProvider } from '../../test/timed-provider.js';
import { userMessage } from '../messages/message.js';
import { PricingTable } from '../pricing/prices.js';
import { ManualClock } from '../testing/manual-clock.js';
import { StubExecutor } from '../testing/stub-executor.js';
import { InMemoryTracer } from './in-memory-tracer.js';
import { metricsFromSpans } from './metrics-from-spans.js';
import { type SpanRecord, subtreeOf } from './span-record.js';

let nextId = 0;
function span(
  name: string,
  attributes: SpanRecord['attributes'] = {},
  fields: Partial<SpanRecord> = {},
): SpanRecord {
  nextId++;
  return {
    name,
    spanId: `s${nextId}`,
    traceId: 't',
    startTimeMs: 0,
    endTimeMs: 10,
    attributes,
    status: 'unset',
    events: [],
    ...fields,
  };
}

describe('metricsFromSpans on hand-made spans', () => {
  it('is all zeros and not completed for no spans', () => {
    const metrics = metricsFromSpans([]);
    expect(metrics).toMatchObject({ runs: 0, completed: false, costUsd: 0, cacheHitRatio: 0 });
    expect(metrics.latency.modelP50Ms).toBeUndefined();
  });

  it('splits prompt tokens into uncached, cache read and cache write', () => {
    const metrics = metricsFromSpans([
      span('mh.model', {
        'gen_ai.usage.input_tokens': 1000,
        'gen_ai.usage.cache_read.input_tokens': 600,
        'gen_ai.usage.cache_creation.input_tokens': 100,
        'gen_ai.usage.output_tokens': 50,
      }),
    ]);
    expect(metrics.tokens).toEqual({ input: 300, output: 50, cacheRead: 600, cacheWrite: 100 });
    expect(metrics.cacheHitRatio).toBe(0.6);
  });

  it('never sums run spans, whatever cost they carry', () => {
    const run = span('mh.run', { 'mh.cost_usd': 99, 'gen_ai.usage.input_tokens': 1e6 });
    const model = span(
      'mh.model',
      { 'mh.cost_usd': 0.5, 'gen_ai.usage.input_tokens': 10 },
      { parentSpanId: run.spanId },
    );
    const metrics = metricsFromSpans([run, model]);
    expect(metrics.costUsd).toBe(0.5);
    expect(metrics.tokens.input).toBe(10);
  });

  it('counts a compaction summary once, whether or not its call has a model span', () => {
    const bare = span('mh.compaction', {
      'mh.compaction.stage': 'summary',
      'mh.cost_usd': 0.25,
      'gen_ai.usage.input_tokens': 400,
    });
    const wrapping = span('mh.compaction', {
      'mh.compaction.stage': 'summary',
      'mh.cost_usd': 0.5,
    });
    const inner = span('mh.model', { 'mh.cost_usd': 0.5 }, { parentSpanId: wrapping.spanId });
    const skipped = span('mh.compaction', { 'mh.compaction.stage': 'skipped' });
    const metrics = metricsFromSpans([bare, wrapping, inner, skipped]);
    expect(metrics.costUsd).toBe(0.75);
    expect(metrics.tokens.input).toBe(400);
    expect(metrics.compactions).toBe(2);
  });

  it('counts tool errors, retries, and reports the last guard and status', () => {
    const metrics = metricsFromSpans([
      span('mh.run', { 'mh.run.status': 'completed' }, { startTimeMs: 0 }),
      span('mh.run', { 'mh.run.status': 'guard', 'mh.guard': 'max-cost' }, { startTimeMs: 50 }),
      span('mh.tool', { 'mh.tool.status': 'ok' }),
      span('mh.tool', { 'mh.tool.status': 'timeout' }, { status: 'error' }),
      span('mh.tool', { 'mh.tool.status': 'denied' }),
      span('mh.model', { 'mh.retry.attempts': 3 }),
      span('mh.model', { 'mh.retry.attempts': 1 }),
    ]);
    expect(metrics).toMatchObject({
      runs: 2,
      completed: false,
      status: 'guard',
      guard: 'max-cost',
      toolCalls: 3,
      toolErrors: 2,
      retries: 2,
    });
  });
});

/** $3 / $15 / $0.30 / $3.75 per million tokens: input, output, cache read, cache write. */
const pricing = new PricingTable({
  m: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
});

describe('metricsFromSpans on a two-run session driven by runLoop', () => {
  async function session(): Promise<{ records: SpanRecord[]; costs: number[] }> {
    const clock = new ManualClock(0);
    const tracer = new InMemoryTracer({ clock });
    const provider = new TimedProvider(
      [
        {
          toolCalls: [{ name: 'lookup', input: { q: 'a' } }],
          usage: { inputTokens: 1000, outputTokens: 100, cacheWriteTokens: 500 },
          firstChunkMs: 100,
          restMs: 50,
        },
        {
          text: 'found it',
          usage: { inputTokens: 200, outputTokens: 50, cacheReadTokens: 1500 },
          firstChunkMs: 40,
          restMs: 20,
        },
        {
          text: 'and again',
          usage: { inputTokens: 300, outputTokens: 80, cacheReadTokens: 1500 },
          firstChunkMs: 30,
          restMs: 60,
        },
      ],
      clock,
    );
    const tools = new StubExecutor({
      lookup: async () => {
        clock.advance(20);
        return 'a result';
      },
    });
    const base = { provider, model: 'm', tools, tracer, clock, pricing };
    const first = await drainRun({ ...base, history: [userMessage('first', 'u1')] });
    const second = await drainRun({
      ...base,
      history: [...first.result.messages, userMessage('second', 'u2')],
    });
    return { records: tracer.records(), costs: [first.result.costUsd, second.result.costUsd] };
  }

  it('equals the hand-computed values', async () => {
    const { records } = await session();
    const metrics = metricsFromSpans(records);
    expect(metrics).toMatchObject({
      runs: 2,
      completed: true,
      status: 'completed',
      turns: 3,
      modelCalls: 3,
      tokens: { input: 1500, output: 230, cacheRead: 3000, cacheWrite: 500 },
      cacheHitRatio: 0.6,
      toolCalls: 1,
      toolErrors: 0,
      compactions: 0,
      retries: 0,
      guard: undefined,
    });
    // (1000·3 + 100·15 + 500·3.75) + (200·3 + 50·15 + 1500·0.3) + (300·3 + 80·15 + 1500·0.3) per 1e6
    expect(metrics.costUsd).toBeCloseTo(0.010725, 12);
    expect(metrics.latency).toEqual({
      runMs: 320, // 150 + 20 + 60, then 90
      runP50Ms: 90,
      runP95Ms: 230,
      modelP50Ms: 90, // of 150, 60, 90
      modelP95Ms: 150,
      timeToFirstTokenP50Ms: 40, // of 100, 40, 30
      timeToFirstTokenP95Ms: 100,
    });
  });

  it("gives each run span that run's own cost, not the session's running total", async () => {
    const { records, costs } = await session();
    const runs = records.filter((record) => record.name === 'mh.run');
    expect(runs.map((run) => run.attributes['mh.cost_usd'])).toEqual(costs);
    expect(runs[0]?.attributes['mh.cost_usd']).toBeCloseTo(0.008175, 12);
    expect(runs[1]?.attributes['mh.cost_usd']).toBeCloseTo(0.00255, 12);
    const secondRun = subtreeOf(records, runs[1] as SpanRecord);
    expect(metricsFromSpans(secondRun).costUsd).toBeCloseTo(0.00255, 12);
    expect(metricsFromSpans(secondRun).turns).toBe(1);
  });
});

describe('metricsFromSpans input', () => {
  it('rejects records that are not an array with ConfigError naming records', () => {
    expect(() => metricsFromSpans(null as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', field: 'records' }),
    );
  });
});
