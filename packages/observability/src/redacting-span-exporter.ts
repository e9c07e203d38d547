import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Redactor } from './redactor.js';

/** Redacted copies, per redactor: exporters sharing a redactor redact each span once. */
const copies = new WeakMap<Redactor, WeakMap<ReadableSpan, ReadableSpan>>();

/**
 * A copy of `span` with secrets masked in its name, every string attribute, event attribute, link
 * attribute and the status message. Names, ids, times and the resource are kept.
 */
export function redactedSpan(span: ReadableSpan, redactor: Redactor): ReadableSpan {
  let cache = copies.get(redactor);
  if (cache === undefined) {
    cache = new WeakMap();
    copies.set(redactor, cache);
  }
  const cached = cache.get(span);
  if (cached !== undefined) return cached;
  const copy: ReadableSpan = {
    name: redactor.redact(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status:
      span.status.message === undefined
        ? span.status
        : { ...span.status, message: redactor.redact(span.status.message) },
    attributes: redactor.redactAttributes(span.attributes),
    links: span.links.map((link) =>
      link.attributes ? { ...link, attributes: redactor.redactAttributes(link.attributes) } : link,
    ),
    events: span.events.map((event) =>
      event.attributes
        ? { ...event, attributes: redactor.redactAttributes(event.attributes) }
        : event,
    ),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
  cache.set(span, copy);
  return copy;
}

/**
 * Wraps an exporter so it only ever receives redacted copies of spans: the place redaction
 * must happen, because every exporter's input passes here and nothing else leaves the process.
 */
export class RedactingSpanExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #redactor: Redactor;

  constructor(inner: SpanExporter, redactor: Redactor) {
    this.#inner = inner;
    this.#redactor = redactor;
  }

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    this.#inner.export(
      spans.map((span) => redactedSpan(span, this.#redactor)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}
