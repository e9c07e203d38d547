export {
  type LatencyMetrics,
  metricsFromSpans,
  type SpanMetrics,
  type SpanRecord,
  type TokenCounts,
} from '@mh/core';
export { createTracing, type Tracing, type TracingOptions } from './create-tracing.js';
export type { ExportFailure, ExportReport } from './export-report.js';
export { OtelTracer, type OtelTracerOptions } from './otel-tracer.js';
export { RedactingSpanExporter, redactedSpan } from './redacting-span-exporter.js';
export { Redactor, type RedactorOptions } from './redactor.js';
export { renderMetrics } from './render-metrics.js';
export { renderTree } from './render-tree.js';
export { SECRET_PATTERNS, type SecretPattern } from './secret-patterns.js';
export { SpanRecordExporter } from './span-record-exporter.js';
export { spanRecordFromOtel } from './span-record-from-otel.js';
