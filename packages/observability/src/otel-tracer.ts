import { SPAN_NAMES, type Span, type SpanOptions, type Tracer } from '@mh/core';
import {
  type Tracer as ApiTracer,
  context,
  SpanKind,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { OtelSpan, otelAttributes, otelSpanOf } from './otel-span.js';

/** Options of `OtelTracer`. */
export interface OtelTracerOptions {
  /** Where spans go (default: the global provider, `trace.getTracerProvider()`, resolved lazily). */
  readonly provider?: TracerProvider;
  /** Let the loop record message content as span events (default false). Redact before export. */
  readonly captureContent?: boolean;
  /** The instrumentation scope's name (default `@mh/observability`). */
  readonly scopeName?: string;
}

/**
 * Core's `Tracer` port on the OpenTelemetry API. `mh.model` spans are CLIENT spans, the others
 * INTERNAL. A span without a parent nests under the active OpenTelemetry span (an enclosing HTTP
 * request, say). `withSpan` makes the span active, so code inside — a tool that uses
 * OpenTelemetry itself — nests its spans under `mh.tool`; that needs a context manager
 * registered globally (`@opentelemetry/context-async-hooks`, or `@opentelemetry/sdk-node`).
 * @example
 * const tracer = new OtelTracer({ provider });
 * const agent = new Agent({ provider: model, model: 'claude-sonnet-4-5', tracer });
 */
export class OtelTracer implements Tracer {
  /** Whether the loop records message content as span events. */
  readonly captureContent: boolean;
  readonly #tracer: ApiTracer;

  constructor(options: OtelTracerOptions = {}) {
    this.captureContent = options.captureContent === true;
    const provider = options.provider ?? trace.getTracerProvider();
    this.#tracer = provider.getTracer(options.scopeName ?? '@mh/observability');
  }

  startSpan(name: string, options: SpanOptions = {}): Span {
    const active = context.active();
    const parent = otelSpanOf(options.parent);
    const parentContext = parent ? trace.setSpan(active, parent) : active;
    const span = this.#tracer.startSpan(
      name,
      {
        kind: name === SPAN_NAMES.model ? SpanKind.CLIENT : SpanKind.INTERNAL,
        attributes: otelAttributes(options.attributes),
      },
      parentContext,
    );
    return new OtelSpan(span);
  }

  withSpan<T>(span: Span, fn: () => T): T {
    const otelSpan = otelSpanOf(span);
    return otelSpan ? context.with(trace.setSpan(context.active(), otelSpan), fn) : fn();
  }
}
