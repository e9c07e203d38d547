import { describe, expect, it } from 'vitest';
import { childrenBySpanId, type SpanRecord, spanDurationMs, subtreeOf } from './span-record.js';

function record(spanId: string, parentSpanId: string | undefined, startTimeMs: number): SpanRecord {
  return {
    name: `span-${spanId}`,
    spanId,
    traceId: 't',
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    startTimeMs,
    endTimeMs: startTimeMs + 10,
    attributes: {},
    status: 'unset',
    events: [],
  };
}

describe('childrenBySpanId', () => {
  it('lists children in start order, whatever the record order', () => {
    const records = [record('c', 'a', 30), record('b', 'a', 20), record('a', undefined, 0)];
    const children = childrenBySpanId(records);
    expect(children.get('a')?.map((child) => child.spanId)).toEqual(['b', 'c']);
    expect(children.get(undefined)?.map((root) => root.spanId)).toEqual(['a']);
  });

  it('treats a span whose parent is missing as a root', () => {
    const children = childrenBySpanId([record('x', 'gone', 5)]);
    expect(children.get(undefined)?.map((root) => root.spanId)).toEqual(['x']);
  });
});

describe('subtreeOf', () => {
  it('returns the root and its descendants only, depth first', () => {
    const root = record('r', undefined, 0);
    const records = [
      root,
      record('t1', 'r', 1),
      record('m1', 't1', 2),
      record('t2', 'r', 5),
      record('other', undefined, 0),
    ];
    expect(subtreeOf(records, root).map((span) => span.spanId)).toEqual(['r', 't1', 'm1', 't2']);
  });
});

describe('spanDurationMs', () => {
  it('is end minus start', () => {
    expect(spanDurationMs(record('a', undefined, 7))).toBe(10);
  });
});
