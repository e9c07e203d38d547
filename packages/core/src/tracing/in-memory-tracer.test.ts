import { describe, expect, it } from 'vitest';
import { noopTracer } from '../ports/tracer.js';
import { ManualClock } from '../testing/manual-clock.js';
import { InMemoryTracer } from './in-memory-tracer.js';

describe('InMemoryTracer', () => {
  it('records a span when it ends, not before', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('mh.run');
    expect(tracer.records()).toEqual([]);
    span.end();
    expect(tracer.records().map((record) => record.name)).toEqual(['mh.run']);
  });

  it('links a child to its parent within one trace', () => {
    const tracer = new InMemoryTracer();
    const parent = tracer.startSpan('parent');
    const child = tracer.startSpan('child', { parent });
    child.end();
    parent.end();
    const [childRecord, parentRecord] = tracer.records();
    expect(childRecord?.parentSpanId).toBe(parentRecord?.spanId);
    expect(childRecord?.traceId).toBe(parentRecord?.traceId);
    expect(parentRecord?.parentSpanId).toBeUndefined();
    expect(parentRecord?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(parentRecord?.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('starts a new trace for each root and gives unique ids', () => {
    const tracer = new InMemoryTracer();
    const first = tracer.startSpan('a');
    const second = tracer.startSpan('b');
    first.end();
    second.end();
    const [a, b] = tracer.records();
    expect(a?.traceId).not.toBe(b?.traceId);
    expect(a?.spanId).not.toBe(b?.spanId);
  });

  it('treats a parent from another tracer as absent', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('a', { parent: new InMemoryTracer().startSpan('foreign') });
    span.end();
    expect(tracer.records()[0]?.parentSpanId).toBeUndefined();
  });

  it('times spans and events with the given clock', () => {
    const clock = new ManualClock(1000);
    const tracer = new InMemoryTracer({ clock });
    const span = tracer.startSpan('a');
    clock.advance(5);
    span.addEvent('mh.retry', { 'mh.retry.attempt': 2 });
    clock.advance(7);
    span.end();
    expect(tracer.records()[0]).toMatchObject({
      startTimeMs: 1000,
      endTimeMs: 1012,
      events: [{ name: 'mh.retry', timeMs: 1005, attributes: { 'mh.retry.attempt': 2 } }],
    });
  });

  it('keeps initial and later attributes, skipping undefined values', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('a', { attributes: { x: 1, gone: undefined } });
    span.setAttributes({ y: 'two', z: undefined });
    span.setAttribute('list', ['a', 'b']);
    span.end();
    expect(tracer.records()[0]?.attributes).toEqual({ x: 1, y: 'two', list: ['a', 'b'] });
  });

  it('ignores everything after end, and a second end', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('a');
    span.end();
    span.setAttribute('late', true);
    span.addEvent('late');
    span.recordError(new Error('late'));
    span.end();
    expect(tracer.records()).toHaveLength(1);
    expect(tracer.records()[0]).toMatchObject({ attributes: {}, events: [], status: 'unset' });
  });

  it('marks a recorded error with status error and an exception event', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('a');
    span.recordError(new RangeError('too far'));
    span.end();
    expect(tracer.records()[0]).toMatchObject({
      status: 'error',
      events: [
        {
          name: 'exception',
          attributes: { 'exception.type': 'RangeError', 'exception.message': 'too far' },
        },
      ],
    });
  });

  it('runs withSpan callbacks and returns their value', () => {
    const tracer = new InMemoryTracer();
    expect(tracer.withSpan(tracer.startSpan('a'), () => 42)).toBe(42);
  });

  it('captures no content unless asked', () => {
    expect(new InMemoryTracer().captureContent).toBe(false);
    expect(new InMemoryTracer({ captureContent: true }).captureContent).toBe(true);
    expect(noopTracer.captureContent).toBeUndefined();
  });

  it('forgets records on clear', () => {
    const tracer = new InMemoryTracer();
    tracer.startSpan('a').end();
    tracer.clear();
    expect(tracer.records()).toEqual([]);
  });
});
