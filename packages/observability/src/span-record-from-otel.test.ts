import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { OtelTracer } from './otel-tracer.js';
import { spanRecordFromOtel } from './span-record-from-otel.js';

describe('spanRecordFromOtel', () => {
  it('maps names, ids, parent, times, attributes, status and events', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = new OtelTracer({ provider });
    const run = tracer.startSpan('mh.run');
    const model = tracer.startSpan('mh.model', { parent: run, attributes: { n: 3, list: ['a'] } });
    model.addEvent('mh.retry', { 'mh.retry.attempt': 2 });
    model.recordError(new Error('boom'));
    model.end();
    run.end();
    const [modelSpan, runSpan] = exporter.getFinishedSpans();
    const record = spanRecordFromOtel(modelSpan as NonNullable<typeof modelSpan>);
    const root = spanRecordFromOtel(runSpan as NonNullable<typeof runSpan>);
    expect(record).toMatchObject({
      name: 'mh.model',
      spanId: modelSpan?.spanContext().spanId,
      traceId: modelSpan?.spanContext().traceId,
      parentSpanId: root.spanId,
      attributes: { n: 3, list: ['a'] },
      status: 'error',
    });
    expect(record.events.map((event) => event.name)).toEqual(['mh.retry', 'exception']);
    expect(record.endTimeMs).toBeGreaterThanOrEqual(record.startTimeMs);
    expect(Math.abs(record.startTimeMs - Date.now())).toBeLessThan(60_000);
    expect(record.events[0]?.timeMs).toBeGreaterThanOrEqual(record.startTimeMs);
    expect(root).not.toHaveProperty('parentSpanId');
    expect(root.status).toBe('unset');
  });

  it('keeps only values core can hold: no empty array slots', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const span = provider.getTracer('t').startSpan('x', {
      attributes: { sparse: ['a', null, 'b'], flags: [true, false], nums: [1, 2] },
    });
    span.end();
    const [finished] = exporter.getFinishedSpans();
    expect(spanRecordFromOtel(finished as NonNullable<typeof finished>).attributes).toEqual({
      sparse: ['a', 'b'],
      flags: ['true', 'false'],
      nums: [1, 2],
    });
    trace.disable();
  });
});
