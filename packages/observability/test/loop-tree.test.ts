import { metricsFromSpans, ProviderError, type SpanRecord } from '@mh/core';
import { ScriptedProvider, StubExecutor } from '@mh/core/testing';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createTracing, type Tracing } from '../src/create-tracing.js';
import { renderTree } from '../src/render-tree.js';
import { drive } from './run-loop.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function named(records: readonly SpanRecord[], name: string): SpanRecord[] {
  return records.filter((record) => record.name === name);
}

function one(records: readonly SpanRecord[], name: string): SpanRecord {
  const found = named(records, name);
  expect(found).toHaveLength(1);
  return found[0] as SpanRecord;
}

let tracing: Tracing;
afterEach(async () => {
  await tracing?.shutdown();
});

describe('a traced run with parallel tools', () => {
  async function run(exporter?: InMemorySpanExporter): Promise<SpanRecord[]> {
    tracing = createTracing({ exporter });
    const provider = new ScriptedProvider([
      {
        text: 'Looking.',
        model: 'claude-sonnet-4-5',
        toolCalls: [
          { id: 'call_a', name: 'slow', input: { path: 'a' } },
          { id: 'call_b', name: 'fast', input: { path: 'b' } },
        ],
        usage: { inputTokens: 1000, outputTokens: 50, cacheWriteTokens: 200 },
      },
      { text: 'Done.', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 1200 } },
    ]);
    const tools = new StubExecutor({
      slow: async () => {
        await sleep(40);
        return 'slow result';
      },
      fast: async () => {
        await sleep(5);
        return 'fast result';
      },
    });
    const result = await drive({ provider, tools, tracer: tracing.tracer });
    expect(result.status).toBe('completed');
    return tracing.records();
  }

  it('nests run → turns → model and tools, tools side by side in time', async () => {
    const records = await run();
    const root = one(records, 'mh.run');
    const turns = named(records, 'mh.turn');
    const [first, second] = turns;
    expect(root.parentSpanId).toBeUndefined();
    expect(turns.map((turn) => turn.parentSpanId)).toEqual([root.spanId, root.spanId]);
    const under = (parent: SpanRecord | undefined): string[] =>
      records
        .filter((record) => record.parentSpanId === parent?.spanId)
        .map((record) => `${record.name}:${record.attributes['gen_ai.tool.name'] ?? ''}`)
        .sort();
    expect(under(first)).toEqual(['mh.model:', 'mh.tool:fast', 'mh.tool:slow']);
    expect(under(second)).toEqual(['mh.model:']);
    const [slow, fast] = ['slow', 'fast'].map((name) =>
      records.find((record) => record.attributes['gen_ai.tool.name'] === name),
    ) as [SpanRecord, SpanRecord];
    expect(fast.startTimeMs).toBeLessThan(slow.endTimeMs);
    expect(slow.startTimeMs).toBeLessThan(fast.endTimeMs);
    expect(fast.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.call.id': 'call_b',
      'mh.tool.status': 'ok',
    });
    expect(new Set(records.map((record) => record.traceId)).size).toBe(1);
  });

  it('puts GenAI usage and cost on model spans and the run totals on the run span', async () => {
    const records = await run();
    const [model] = named(records, 'mh.model');
    expect(model?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.response.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.cache_creation.input_tokens': 200,
      'gen_ai.usage.output_tokens': 50,
      'gen_ai.response.finish_reasons': ['tool_call'],
    });
    expect(model?.attributes['mh.cost_usd']).toBeCloseTo(0.0045, 12);
    expect(typeof model?.attributes['mh.time_to_first_token_ms']).toBe('number');
    const runSpan = one(records, 'mh.run');
    expect(runSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'mh.run.status': 'completed',
      'mh.turns': 2,
      'gen_ai.usage.input_tokens': 2500,
    });
  });

  it('makes model spans CLIENT and the others INTERNAL', async () => {
    const exporter = new InMemorySpanExporter();
    await run(exporter);
    await tracing.flush();
    const kinds = Object.fromEntries(
      exporter.getFinishedSpans().map((span) => [span.name, span.kind]),
    );
    expect(kinds).toEqual({
      'mh.run': SpanKind.INTERNAL,
      'mh.turn': SpanKind.INTERNAL,
      'mh.model': SpanKind.CLIENT,
      'mh.tool': SpanKind.INTERNAL,
    });
  });

  it('derives metrics equal to the hand-computed values', async () => {
    const metrics = metricsFromSpans(await run());
    expect(metrics).toMatchObject({
      runs: 1,
      completed: true,
      turns: 2,
      modelCalls: 2,
      tokens: { input: 1100, output: 70, cacheRead: 1200, cacheWrite: 200 },
      cacheHitRatio: 1200 / 2500,
      toolCalls: 2,
      toolErrors: 0,
      retries: 0,
      compactions: 0,
      guard: undefined,
    });
    // $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens (claude-sonnet-4-5)
    expect(metrics.costUsd).toBeCloseTo(
      (1000 * 3 + 50 * 15 + 200 * 3.75 + 100 * 3 + 20 * 15 + 1200 * 0.3) / 1e6,
      12,
    );
    expect(metrics.latency.runMs).toBeGreaterThanOrEqual(40);
  });

  it('renders the tree with tool names, tokens and cost', async () => {
    const lines = renderTree(await run()).split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      /^run completed · \S+ · 2 turns · in 2\.5k \(cache read 1\.2k, write 200\) out 70 · \$0\.00546$/,
    );
    expect(lines[1]).toMatch(/^├─ turn 1 · /);
    expect(lines[2]).toMatch(
      /^│ {2}├─ model claude-sonnet-4-5 · \S+ · ttft \S+ · in 1\.2k \(cache write 200\) out 50 · \$0\.0045$/,
    );
    expect(lines[3]).toMatch(/^│ {2}├─ tool (slow|fast) · /);
    expect(lines[4]).toMatch(/^│ {2}└─ tool (slow|fast) · /);
    expect(
      lines
        .slice(3, 5)
        .map((line) => line.split(' · ')[0]?.slice(6))
        .sort(),
    ).toEqual(['tool fast', 'tool slow']);
    expect(lines[5]).toMatch(/^└─ turn 2 · /);
    expect(lines[6]).toMatch(
      /^ {3}└─ model claude-sonnet-4-5 · .* · in 1\.3k \(cache read 1\.2k\) out 20 · \$0\.00096$/,
    );
  });
});

describe('traced runs that do not simply complete', () => {
  it('counts a retry from the stream-reset event', async () => {
    tracing = createTracing();
    const provider = new ScriptedProvider([
      {
        text: 'Hello.',
        reset: {
          text: 'Hel',
          reason: 'overloaded: try again',
          usage: { inputTokens: 500, outputTokens: 3 },
        },
        usage: { inputTokens: 500, outputTokens: 10 },
      },
    ]);
    await drive({ provider, tracer: tracing.tracer });
    const records = tracing.records();
    const model = one(records, 'mh.model');
    expect(model.attributes).toMatchObject({
      'mh.retry.attempts': 2,
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 13,
    });
    expect(model.events.map((event) => [event.name, event.attributes])).toEqual([
      ['mh.retry', { 'mh.retry.attempt': 2, 'mh.retry.reason': 'overloaded: try again' }],
    ]);
    expect(metricsFromSpans(records).retries).toBe(1);
    expect(renderTree(records)).toMatch(/model claude-sonnet-4-5 · .* · 1 retry$/m);
  });

  it('names the tripped guard on the run span, the tree and the metrics', async () => {
    tracing = createTracing();
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'fast' }] }]);
    const tools = new StubExecutor({ fast: async () => 'ok' });
    const result = await drive({
      provider,
      tools,
      tracer: tracing.tracer,
      limits: { maxTurns: 1 },
    });
    expect(result.status).toBe('guard');
    const records = tracing.records();
    expect(one(records, 'mh.run').attributes).toMatchObject({
      'mh.run.status': 'guard',
      'mh.guard': 'max-turns',
    });
    expect(renderTree(records).split('\n')[0]).toMatch(/^run guard: max-turns · /);
    expect(metricsFromSpans(records)).toMatchObject({
      completed: false,
      status: 'guard',
      guard: 'max-turns',
    });
  });

  it('marks a provider error on model, turn and run, with its kind and message', async () => {
    tracing = createTracing();
    const error = new ProviderError('Too many requests', { kind: 'rate-limit', status: 429 });
    const result = await drive({
      provider: new ScriptedProvider([{ error, eventsBeforeStop: 0 }]),
      tracer: tracing.tracer,
    });
    expect(result.status).toBe('error');
    const records = tracing.records();
    for (const name of ['mh.run', 'mh.turn', 'mh.model']) {
      const record = one(records, name);
      expect(record.status).toBe('error');
      expect(record.attributes['error.type']).toBe('rate-limit');
      expect(record.events.find((event) => event.name === 'exception')?.attributes).toMatchObject({
        'exception.message': 'Too many requests',
      });
    }
    expect(renderTree(records)).toMatch(
      /model claude-sonnet-4-5 · .* · ✗ rate-limit: Too many requests$/m,
    );
    expect(metricsFromSpans(records)).toMatchObject({ completed: false, status: 'error' });
  });

  it('marks a failed tool call and counts it as a tool error', async () => {
    tracing = createTracing();
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'broken' }] },
      { text: 'Sorry.' },
    ]);
    const tools = new StubExecutor({
      broken: async () => {
        throw new Error('disk full');
      },
    });
    await drive({ provider, tools, tracer: tracing.tracer });
    const records = tracing.records();
    expect(one(records, 'mh.tool')).toMatchObject({
      status: 'error',
      attributes: { 'error.type': 'error' },
    });
    expect(metricsFromSpans(records)).toMatchObject({
      completed: true,
      toolCalls: 1,
      toolErrors: 1,
    });
    expect(renderTree(records)).toMatch(/tool broken · \S+ · ✗ error/);
  });

  it('ends every span of a run cancelled mid-stream, the run marked cancelled', async () => {
    tracing = createTracing();
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      { text: 'Partial', hang: 'until-aborted', eventsBeforeStop: 2 },
    ]);
    const result = await drive(
      { provider, tracer: tracing.tracer, signal: controller.signal },
      (type) => {
        if (type === 'text-delta') controller.abort();
      },
    );
    expect(result.status).toBe('cancelled');
    const records = tracing.records();
    expect(records.map((record) => record.name).sort()).toEqual(['mh.model', 'mh.run', 'mh.turn']);
    expect(one(records, 'mh.run').attributes['mh.run.status']).toBe('cancelled');
    expect(renderTree(records).split('\n')[0]).toMatch(/^run cancelled · /);
    expect(metricsFromSpans(records)).toMatchObject({ completed: false, status: 'cancelled' });
  });

  it('ends the tool span of a call cancelled while it runs, under its turn', async () => {
    tracing = createTracing();
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'wait' }] }]);
    const tools = new StubExecutor({
      wait: (_input, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    });
    const result = await drive(
      { provider, tools, tracer: tracing.tracer, signal: controller.signal },
      (type) => {
        if (type === 'tool-execution-start') controller.abort();
      },
    );
    expect(result.status).toBe('cancelled');
    await sleep(5);
    const records = tracing.records();
    const tool = one(records, 'mh.tool');
    expect(tool.parentSpanId).toBe(one(records, 'mh.turn').spanId);
    expect(tool.attributes['mh.tool.status']).toBe('cancelled');
  });
});
