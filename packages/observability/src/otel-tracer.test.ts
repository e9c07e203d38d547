import { InMemoryTracer } from '@mh/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { OtelTracer } from './otel-tracer.js';

function setup(): { tracer: OtelTracer; spans: () => ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: new OtelTracer({ provider }), spans: () => exporter.getFinishedSpans() };
}

afterEach(() => {
  trace.disable();
});

describe('OtelTracer', () => {
  it('links a child to its parent span', () => {
    const { tracer, spans } = setup();
    const run = tracer.startSpan('mh.run');
    tracer.startSpan('mh.turn', { parent: run }).end();
    run.end();
    const [turn, root] = spans();
    expect(turn?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(turn?.spanContext().traceId).toBe(root?.spanContext().traceId);
  });

  it('makes mh.model a CLIENT span and the rest INTERNAL', () => {
    const { tracer, spans } = setup();
    tracer.startSpan('mh.model').end();
    tracer.startSpan('mh.tool').end();
    expect(spans().map((span) => span.kind)).toEqual([SpanKind.CLIENT, SpanKind.INTERNAL]);
  });

  it('sets initial and later attributes and events, skipping undefined values', () => {
    const { tracer, spans } = setup();
    const span = tracer.startSpan('mh.model', { attributes: { a: 1, b: undefined } });
    span.setAttributes({ c: ['x', 'y'], d: undefined });
    span.setAttribute('e', true);
    span.addEvent('mh.retry', { 'mh.retry.attempt': 2 });
    span.end();
    const [finished] = spans();
    expect(finished?.attributes).toEqual({ a: 1, c: ['x', 'y'], e: true });
    expect(finished?.events.map((event) => [event.name, event.attributes])).toEqual([
      ['mh.retry', { 'mh.retry.attempt': 2 }],
    ]);
  });

  it('records a failure as status ERROR with the exception', () => {
    const { tracer, spans } = setup();
    const span = tracer.startSpan('mh.tool');
    span.recordError(new TypeError('bad input'));
    span.end();
    const [finished] = spans();
    expect(finished?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'bad input' });
    expect(finished?.events[0]?.attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': 'bad input',
    });
  });

  it('ignores calls after end, and a second end', () => {
    const { tracer, spans } = setup();
    const span = tracer.startSpan('mh.run');
    span.end();
    span.setAttribute('late', 1);
    span.recordError(new Error('late'));
    span.end();
    expect(spans()).toHaveLength(1);
    expect(spans()[0]?.attributes).toEqual({});
  });

  it('runs withSpan callbacks with a span of another tracer as a plain call', () => {
    const { tracer } = setup();
    expect(tracer.withSpan(new InMemoryTracer().startSpan('x'), () => 'ran')).toBe('ran');
  });

  it('uses the global provider by default, even one registered later', () => {
    const tracer = new OtelTracer();
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    tracer.startSpan('mh.run').end();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['mh.run']);
  });

  it('captures no content unless asked', () => {
    expect(new OtelTracer().captureContent).toBe(false);
    expect(new OtelTracer({ captureContent: true }).captureContent).toBe(true);
  });
});
