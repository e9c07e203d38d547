// The README's usage example, verbatim: readme-examples.test.ts checks it matches the README,
// type-checking the tests compiles it, and the test runs it (no collector needed: no span is sent).
import { createTracing, metricsFromSpans, renderTree } from '@mh/observability';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

const tracing = createTracing({ exporter: new OTLPTraceExporter({ url: 'http://localhost:4318/v1/traces' }) });
// Give tracing.tracer to your agent, then run it: new Agent({ provider, model, tracer: tracing.tracer })
console.log(renderTree(tracing.records()), metricsFromSpans(tracing.records()));
await tracing.shutdown(); // flushes; resolves even when the collector is down
