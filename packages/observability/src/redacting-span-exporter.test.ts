import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { OtelTracer } from './otel-tracer.js';
import { RedactingSpanExporter } from './redacting-span-exporter.js';
import { Redactor } from './redactor.js';

const SECRET = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';

function exportOne(redactor = new Redactor()): {
  inner: InMemorySpanExporter;
  raw: InMemorySpanExporter;
} {
  const inner = new InMemorySpanExporter();
  const raw = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(new RedactingSpanExporter(inner, redactor)),
      new SimpleSpanProcessor(raw),
    ],
  });
  const tracer = new OtelTracer({ provider });
  const span = tracer.startSpan(`call ${SECRET}`, {
    attributes: { key: SECRET, list: [SECRET, 'ok'], n: 1 },
  });
  span.addEvent('content', { 'gen_ai.input.messages': `[{"content":"${SECRET}"}]` });
  span.recordError(new Error(`auth failed for ${SECRET}`));
  span.end();
  return { inner, raw };
}

describe('RedactingSpanExporter', () => {
  it('hands its exporter a copy with the name, attributes, events and status masked', () => {
    const { inner } = exportOne();
    const [span] = inner.getFinishedSpans();
    expect(JSON.stringify({ ...span, spanContext: span?.spanContext() })).not.toContain(SECRET);
    expect(span?.name).toBe('call [REDACTED:anthropic-key]');
    expect(span?.attributes).toEqual({
      key: '[REDACTED:anthropic-key]',
      list: ['[REDACTED:anthropic-key]', 'ok'],
      n: 1,
    });
    expect(span?.status.message).toBe('auth failed for [REDACTED:anthropic-key]');
    expect(span?.events[1]?.attributes?.['exception.message']).toBe(
      'auth failed for [REDACTED:anthropic-key]',
    );
  });

  it('keeps ids, times and the resource of the original', () => {
    const { inner, raw } = exportOne();
    const [copy] = inner.getFinishedSpans();
    const [original] = raw.getFinishedSpans();
    expect(copy?.spanContext()).toEqual(original?.spanContext());
    expect(copy?.startTime).toEqual(original?.startTime);
    expect(copy?.endTime).toEqual(original?.endTime);
    expect(copy?.resource).toBe(original?.resource);
  });

  it('leaves the span itself untouched (other processors see it raw)', () => {
    const { raw } = exportOne();
    expect(raw.getFinishedSpans()[0]?.attributes.key).toBe(SECRET);
  });
});
