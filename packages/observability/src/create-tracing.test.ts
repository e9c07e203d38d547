import { ConfigError } from '@mh/core';
import { InMemorySpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createTracing, type TracingOptions } from './create-tracing.js';
import { Redactor } from './redactor.js';

describe('createTracing', () => {
  it('keeps finished spans as redacted records, also after shutdown', async () => {
    const tracing = createTracing();
    const span = tracing.tracer.startSpan('mh.run', { attributes: { note: 'token=abcdef123' } });
    expect(tracing.records()).toEqual([]);
    span.end();
    await tracing.shutdown();
    expect(tracing.records()).toMatchObject([
      { name: 'mh.run', attributes: { note: 'token=[REDACTED:secret-assignment]' } },
    ]);
  });

  it("sends spans to the user's exporter, batched, redacted with the user's secrets", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing({ exporter, redact: { secrets: ['my-own-secret'] } });
    tracing.tracer.startSpan('mh.run', { attributes: { note: 'is my-own-secret' } }).end();
    await tracing.flush();
    expect(exporter.getFinishedSpans().map((span) => span.attributes.note)).toEqual([
      'is [REDACTED:secret]',
    ]);
    await tracing.shutdown();
  });

  it('accepts a ready Redactor', () => {
    const tracing = createTracing({ redact: new Redactor({ patterns: [/PLAN-\d+/] }) });
    tracing.tracer.startSpan('x', { attributes: { a: 'PLAN-42' } }).end();
    expect(tracing.records()[0]?.attributes.a).toBe('[REDACTED:custom]');
  });

  it('keeps no records when told not to', () => {
    const tracing = createTracing({ keepRecords: false });
    tracing.tracer.startSpan('x').end();
    expect(tracing.records()).toEqual([]);
  });

  it('forgets records on clear', () => {
    const tracing = createTracing();
    tracing.tracer.startSpan('x').end();
    tracing.clear();
    expect(tracing.records()).toEqual([]);
  });

  it('captures content only when asked', () => {
    expect(createTracing().tracer.captureContent).toBe(false);
    expect(createTracing({ captureContent: true }).tracer.captureContent).toBe(true);
  });

  it('rejects bad redaction options with a ConfigError', () => {
    expect(() => createTracing({ redact: { secrets: [''] } })).toThrow(ConfigError);
  });

  it.each([
    ['exportr', { exportr: new InMemorySpanExporter() }],
    ['exporter', { exporter: {} }],
    ['onExportError', { onExportError: 'warn' }],
    ['options', null],
  ])('rejects a bad option with a ConfigError naming %s', (field, options) => {
    let error: unknown;
    try {
      createTracing(options as unknown as TracingOptions);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) ? error.field : error).toBe(field);
  });

  it('rejects an exportTimeoutMs that is not a positive finite number', () => {
    for (const exportTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createTracing({ exportTimeoutMs })).toThrow(ConfigError);
  });

  it('reports an exporter that throws, and one whose shutdown rejects, without rejecting', async () => {
    const exporter: SpanExporter = {
      export: () => {
        throw new Error('serializer broke');
      },
      shutdown: () => Promise.reject(new Error('socket already closed')),
    };
    const tracing = createTracing({ exporter, onExportError: () => {} });
    tracing.tracer.startSpan('x').end();
    expect(await tracing.flush()).toEqual({
      ok: false,
      failedSpans: 1,
      pendingSpans: 0,
      reasons: ['serializer broke'],
    });
    expect(await tracing.shutdown()).toEqual({
      ok: false,
      failedSpans: 0,
      pendingSpans: 0,
      reasons: ['socket already closed'],
    });
  });

  it('goes on exporting when onExportError throws', async () => {
    let calls = 0;
    const exporter: SpanExporter = {
      export: (_spans, done) => done({ code: 1, error: new Error('down') }),
      shutdown: () => Promise.resolve(),
    };
    const tracing = createTracing({
      exporter,
      onExportError: () => {
        calls++;
        throw new Error('handler bug');
      },
    });
    tracing.tracer.startSpan('x').end();
    expect((await tracing.flush()).failedSpans).toBe(1);
    tracing.tracer.startSpan('y').end();
    expect((await tracing.shutdown()).failedSpans).toBe(1);
    expect(calls).toBe(2);
  });
});
