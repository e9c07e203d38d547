import type { Attributes, AttributeValue, Span } from '@mh/core';
import {
  type Span as ApiSpan,
  type Attributes as OtelAttributes,
  type AttributeValue as OtelAttributeValue,
  SpanStatusCode,
} from '@opentelemetry/api';

/** Our attributes as OpenTelemetry's (its arrays are typed mutable; it copies them anyway). */
export function otelAttributes(attributes: Attributes | undefined): OtelAttributes | undefined {
  return attributes as OtelAttributes | undefined;
}

/** Core's `Span` port over an OpenTelemetry span. */
export class OtelSpan implements Span {
  /** The OpenTelemetry span, for context propagation. */
  readonly otelSpan: ApiSpan;
  #ended = false;

  constructor(otelSpan: ApiSpan) {
    this.otelSpan = otelSpan;
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (!this.#ended) this.otelSpan.setAttribute(key, value as OtelAttributeValue);
  }

  setAttributes(attributes: Attributes): void {
    // OpenTelemetry skips undefined values itself.
    if (!this.#ended) this.otelSpan.setAttributes(otelAttributes(attributes) ?? {});
  }

  addEvent(name: string, attributes?: Attributes): void {
    if (!this.#ended) this.otelSpan.addEvent(name, otelAttributes(attributes));
  }

  recordError(error: unknown): void {
    if (this.#ended) return;
    const isError = error instanceof Error;
    this.otelSpan.recordException(isError ? error : String(error));
    this.otelSpan.setStatus({
      code: SpanStatusCode.ERROR,
      message: isError ? error.message : String(error),
    });
  }

  end(): void {
    // OpenTelemetry logs a warning for a second end; the port says later calls are ignored.
    if (this.#ended) return;
    this.#ended = true;
    this.otelSpan.end();
  }
}

/**
 * The OpenTelemetry span behind `span`, if it is an `OtelSpan` — from this or another copy of
 * this package (so not `instanceof`, which two copies in one install break).
 */
export function otelSpanOf(span: Span | undefined): ApiSpan | undefined {
  const candidate = (span as { otelSpan?: Partial<ApiSpan> } | undefined)?.otelSpan;
  return typeof candidate?.spanContext === 'function' ? (candidate as ApiSpan) : undefined;
}
