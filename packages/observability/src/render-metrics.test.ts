import { metricsFromSpans, type SpanRecord } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { renderMetrics } from './render-metrics.js';

describe('renderMetrics', () => {
  it('prints runs, tokens, cache hits, cost, latency and tools', () => {
    const model: SpanRecord = {
      name: 'mh.model',
      spanId: 'm',
      traceId: 't',
      parentSpanId: 'r',
      startTimeMs: 0,
      endTimeMs: 800,
      attributes: {
        'gen_ai.usage.input_tokens': 2000,
        'gen_ai.usage.cache_read.input_tokens': 1500,
        'gen_ai.usage.output_tokens': 40,
        'mh.cost_usd': 0.0021,
        'mh.time_to_first_token_ms': 300,
      },
      status: 'unset',
      events: [],
    };
    const run: SpanRecord = {
      ...model,
      name: 'mh.run',
      spanId: 'r',
      parentSpanId: undefined,
      endTimeMs: 1000,
      attributes: { 'mh.run.status': 'completed' },
    };
    expect(renderMetrics(metricsFromSpans([run, model])).split('\n')).toEqual([
      '1 run · completed · 0 turns · 1 model calls · 0 retries',
      'tokens: in 500 · cache read 1.5k · cache write 0 · out 40 · cache hit 75.0% · $0.0021',
      'latency: run 1.00s · model p50 800ms p95 800ms · first token p50 300ms',
      'tools: 0 calls · 0 errors · compactions 0',
    ]);
  });
});
