import type { SpanRecord } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { renderTree } from './render-tree.js';

let next = 0;
function span(
  name: string,
  parent: SpanRecord | undefined,
  startTimeMs: number,
  durationMs: number,
  attributes: SpanRecord['attributes'] = {},
  extra: Partial<SpanRecord> = {},
): SpanRecord {
  return {
    name,
    spanId: `s${++next}`,
    traceId: 't',
    ...(parent ? { parentSpanId: parent.spanId } : {}),
    startTimeMs,
    endTimeMs: startTimeMs + durationMs,
    attributes,
    status: 'unset',
    events: [],
    ...extra,
  };
}

describe('renderTree', () => {
  const run = span('mh.run', undefined, 0, 1840, {
    'mh.run.status': 'guard',
    'mh.guard': 'max-cost',
    'mh.turns': 2,
    'gen_ai.usage.input_tokens': 2100,
    'gen_ai.usage.cache_read.input_tokens': 1500,
    'gen_ai.usage.output_tokens': 96,
    'mh.cost_usd': 0.00342,
  });
  const turn1 = span('mh.turn', run, 1, 1120, { 'mh.turn': 1 });
  const compaction = span('mh.compaction', turn1, 2, 15, {
    'mh.compaction.stage': 'trim',
    'mh.compaction.tokens_before': 90_000,
    'mh.compaction.tokens_after': 30_000,
    'mh.compaction.folded_messages': 12,
  });
  const model = span('mh.model', turn1, 20, 1100, {
    'gen_ai.request.model': 'claude-sonnet-4-5',
    'mh.time_to_first_token_ms': 420,
    'gen_ai.usage.input_tokens': 1000,
    'gen_ai.usage.output_tokens': 40,
    'mh.cost_usd': 0.0024,
    'mh.retry.attempts': 3,
  });
  const tool = span(
    'mh.tool',
    turn1,
    1121,
    3,
    { 'gen_ai.tool.name': 'grep', 'mh.tool.status': 'timeout', 'error.type': 'timeout' },
    {
      status: 'error',
      events: [
        { name: 'exception', timeMs: 1124, attributes: { 'exception.message': 'grep: timeout' } },
      ],
    },
  );
  const denied = span('mh.tool', turn1, 1122, 0.2, {
    'gen_ai.tool.name': 'rm',
    'mh.tool.status': 'denied',
  });
  const turn2 = span('mh.turn', run, 1130, 700, { 'mh.turn': 2 });
  const foreign = span('GET /page', turn2, 1131, 50);
  // Out of order on purpose: the tree follows parents and start times, not record order.
  const records = [foreign, tool, model, turn2, compaction, denied, turn1, run];

  it('draws one indented line per span, children in start order', () => {
    const lines = renderTree(records).split('\n');
    expect(lines.map((line) => line.replace(/ · .*/, ''))).toEqual([
      'run guard: max-cost',
      '├─ turn 1',
      '│  ├─ compaction trim',
      '│  ├─ model claude-sonnet-4-5',
      '│  ├─ tool grep',
      '│  └─ tool rm',
      '└─ turn 2',
      '   └─ GET /page',
    ]);
  });

  it('shows durations, tokens, cost, retries, guard, compaction sizes and errors', () => {
    const lines = renderTree(records).split('\n');
    expect(lines[0]).toBe(
      'run guard: max-cost · 1.84s · 2 turns · in 2.1k (cache read 1.5k) out 96 · $0.00342',
    );
    expect(lines[2]).toBe(
      '│  ├─ compaction trim · 15ms · 90.0k → 30.0k tokens · 12 messages folded',
    );
    expect(lines[3]).toBe(
      '│  ├─ model claude-sonnet-4-5 · 1.10s · ttft 420ms · in 1.0k out 40 · $0.0024 · 2 retries',
    );
    expect(lines[4]).toBe('│  ├─ tool grep · 3ms · ✗ timeout: grep: timeout');
    expect(lines[5]).toBe('│  └─ tool rm · 0.20ms · denied');
    expect(lines[7]).toBe('   └─ GET /page · 50ms');
  });

  it('starts a tree for each span whose parent is missing', () => {
    const orphan = span('mh.model', span('mh.turn', undefined, 0, 1), 5, 10, {
      'gen_ai.request.model': 'gpt-5',
    });
    expect(renderTree([orphan])).toBe('model gpt-5 · 10ms');
  });

  it('renders nothing for no spans', () => {
    expect(renderTree([])).toBe('');
  });
});

describe('renderTree input', () => {
  it('rejects records that are not an array with ConfigError naming records', () => {
    expect(() => renderTree(null as never)).toThrow(
      expect.objectContaining({ name: 'ConfigError', field: 'records' }),
    );
  });
});
