import type { SpanRecord } from '@mh/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  type TracerConfig,
} from '@opentelemetry/sdk-trace-base';
import { OtelTracer } from './otel-tracer.js';
import { RedactingSpanExporter } from './redacting-span-exporter.js';
import { Redactor, type RedactorOptions } from './redactor.js';
import { SpanRecordExporter } from './span-record-exporter.js';

/** Options of `createTracing`. */
export interface TracingOptions {
  /** Where spans go besides `records()`: any OpenTelemetry exporter (OTLP, console, …), batched. */
  readonly exporter?: SpanExporter;
  /** Record prompts, outputs, tool arguments and results as span events (default false). */
  readonly captureContent?: boolean;
  /** Extra secret patterns and exact secret values; the built-in patterns always apply. */
  readonly redact?: RedactorOptions | Redactor;
  /** Keep finished spans in memory for `records()` (default true; turn off for long-lived servers). */
  readonly keepRecords?: boolean;
  /** The provider's resource (service name and so on); default OpenTelemetry's. */
  readonly resource?: TracerConfig['resource'];
}

/** What `createTracing` wires up. */
export interface Tracing {
  /** Give this to the agent (`new Agent({ tracer })`) or the loop. */
  readonly tracer: OtelTracer;
  /** The OpenTelemetry provider, e.g. for `trace.setGlobalTracerProvider(provider)`. */
  readonly provider: BasicTracerProvider;
  /** Finished spans so far, redacted, as plain records; kept after shutdown (none without `keepRecords`). */
  records(): SpanRecord[];
  /** Forgets the finished spans `records()` returns. */
  clear(): void;
  /** Exports every finished span now. */
  flush(): Promise<void>;
  /** Flushes, then shuts the provider and its exporters down. */
  shutdown(): Promise<void>;
}

/**
 * Wires OpenTelemetry tracing for the agent: a `BasicTracerProvider` whose exporters — an
 * in-memory one behind `records()` and yours — receive only redacted copies of spans, and an
 * `OtelTracer` on it. Nothing is registered globally.
 * @example
 * const tracing = createTracing({ exporter: new OTLPTraceExporter() });
 * const agent = new Agent({ provider, model: 'claude-sonnet-4-5', tracer: tracing.tracer });
 * await agent.run('What is 6 * 7?');
 * console.log(renderTree(tracing.records()));
 * await tracing.shutdown();
 */
export function createTracing(options: TracingOptions = {}): Tracing {
  const redactor =
    options.redact instanceof Redactor ? options.redact : new Redactor(options.redact);
  const memory = new SpanRecordExporter();
  const processors: SpanProcessor[] = [];
  if (options.keepRecords !== false)
    processors.push(new SimpleSpanProcessor(new RedactingSpanExporter(memory, redactor)));
  if (options.exporter)
    processors.push(new BatchSpanProcessor(new RedactingSpanExporter(options.exporter, redactor)));
  const provider = new BasicTracerProvider({
    spanProcessors: processors,
    ...(options.resource === undefined ? {} : { resource: options.resource }),
  });
  const tracer = new OtelTracer({ provider, captureContent: options.captureContent === true });
  return {
    tracer,
    provider,
    records: (): SpanRecord[] => memory.records(),
    clear: (): void => memory.clear(),
    flush: (): Promise<void> => provider.forceFlush(),
    shutdown: (): Promise<void> => provider.shutdown(),
  };
}
