import { ConfigError, type SpanRecord } from '@mh/core';
import { assertImplements, assertOptions } from '@mh/core/internal';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  type TracerConfig,
} from '@opentelemetry/sdk-trace-base';
import type { ExportFailure, ExportReport } from './export-report.js';
import { OtelTracer } from './otel-tracer.js';
import { RedactingSpanExporter } from './redacting-span-exporter.js';
import { Redactor, type RedactorOptions } from './redactor.js';
import { describeExportError, ReportingSpanExporter } from './reporting-span-exporter.js';
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
  /**
   * Longest wait, in ms, of `flush()` and `shutdown()` for the exporter, and of one batch export
   * (default 10 000, `OTLPTraceExporter`'s own request timeout). Spans unconfirmed by then count
   * as `pendingSpans`. An OTLP request already sent keeps the process alive until the exporter's
   * `timeoutMillis`, so give the exporter a lower one too for a short-lived program.
   */
  readonly exportTimeoutMs?: number;
  /**
   * Called for each export that failed (collector down, HTTP error, timeout), during the run or
   * at flush and shutdown; the run goes on regardless. Default: one `process.emitWarning` line
   * for the first failure only; later ones are in the `ExportReport`s.
   */
  readonly onExportError?: (failure: ExportFailure) => void;
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
  /**
   * Exports every finished span now. Resolves within `exportTimeoutMs` with what failed since the
   * previous report; never rejects because the exporter or its collector failed.
   */
  flush(): Promise<ExportReport>;
  /** Flushes, then shuts the provider and its exporters down; resolves like `flush()`. */
  shutdown(): Promise<ExportReport>;
}

const DEFAULT_EXPORT_TIMEOUT_MS = 10_000;
const ALL_EXPORTED: ExportReport = { ok: true, failedSpans: 0, pendingSpans: 0, reasons: [] };

/** The default `onExportError`: one warning line for the first failure, no stack. */
function warnOnce(): (failure: ExportFailure) => void {
  let warned = false;
  return (failure) => {
    if (warned) return;
    warned = true;
    process.emitWarning(
      `@mh/observability: ${failure.exporter} could not export ${failure.spans} span(s): ` +
        `${describeExportError(failure.error)}. The agent run is unaffected; later failures ` +
        'are counted in the result of tracing.flush() and tracing.shutdown().',
    );
  };
}

/** Runs `work` for at most `timeoutMs`; says whether it finished and the first error it threw. */
async function settleWithin(
  timeoutMs: number,
  work: () => Promise<void>,
): Promise<{ finished: boolean; error?: Error }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ finished: boolean }>((resolve) => {
    timer = setTimeout(() => resolve({ finished: false }), timeoutMs);
    // Waiting must not by itself keep the program alive.
    timer.unref();
  });
  const settled = work().then(
    () => ({ finished: true }),
    (error: unknown) => ({ finished: true, error: firstError(error) }),
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `BasicTracerProvider.forceFlush` rejects with an array of errors. */
function firstError(error: unknown): Error {
  const first: unknown = Array.isArray(error) ? error[0] : error;
  return first instanceof Error ? first : new Error(String(first));
}

const TRACING_OPTION_KEYS: readonly string[] = [
  'exporter',
  'captureContent',
  'redact',
  'keepRecords',
  'resource',
  'exportTimeoutMs',
  'onExportError',
];

/**
 * Wires OpenTelemetry tracing for the agent: a `BasicTracerProvider` whose exporters — an
 * in-memory one behind `records()` and yours — receive only redacted copies of spans, and an
 * `OtelTracer` on it. Nothing is registered globally.
 * @example
 * const tracing = createTracing({ exporter: new OTLPTraceExporter() });
 * const agent = new Agent({ provider, model: 'claude-sonnet-4-5', tracer: tracing.tracer });
 * await agent.run('What is 6 * 7?');
 * console.log(renderTree(tracing.records()));
 * const report = await tracing.shutdown(); // never rejects; report.ok, failedSpans, reasons
 */
export function createTracing(options: TracingOptions = {}): Tracing {
  // A misspelt `exporter` would otherwise send nothing anywhere, without a word.
  assertOptions(options, TRACING_OPTION_KEYS, '');
  assertImplements(options.exporter, ['export', 'shutdown'], 'exporter', 'a SpanExporter');
  if (options.onExportError !== undefined && typeof options.onExportError !== 'function')
    throw new ConfigError('onExportError', 'expected a function');
  const redactor =
    options.redact instanceof Redactor ? options.redact : new Redactor(options.redact);
  const timeoutMs = options.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new ConfigError('exportTimeoutMs', 'must be a positive, finite number of milliseconds');
  const memory = new SpanRecordExporter();
  const processors: SpanProcessor[] = [];
  if (options.keepRecords !== false)
    processors.push(new SimpleSpanProcessor(new RedactingSpanExporter(memory, redactor)));
  const reporting = options.exporter
    ? new ReportingSpanExporter(options.exporter, options.onExportError ?? warnOnce())
    : undefined;
  if (reporting)
    processors.push(
      new BatchSpanProcessor(new RedactingSpanExporter(reporting, redactor), {
        exportTimeoutMillis: timeoutMs,
      }),
    );
  const provider = new BasicTracerProvider({
    spanProcessors: processors,
    forceFlushTimeoutMillis: timeoutMs,
    ...(options.resource === undefined ? {} : { resource: options.resource }),
  });
  const tracer = new OtelTracer({ provider, captureContent: options.captureContent === true });
  /** Runs a flush or shutdown; its failures are in the report, never a rejection. */
  const reported = async (work: () => Promise<void>): Promise<ExportReport> => {
    const { finished, error } = await settleWithin(timeoutMs, async () => {
      await work();
      await reporting?.idle();
    });
    if (!reporting) return error ? reportOf(error) : ALL_EXPORTED;
    // The batch processor may give up first (same timeout): what is still unanswered is pending.
    return reporting.takeReport(finished && !error ? undefined : timeoutMs, error);
  };
  return {
    tracer,
    provider,
    records: (): SpanRecord[] => memory.records(),
    clear: (): void => memory.clear(),
    flush: (): Promise<ExportReport> => reported(() => provider.forceFlush()),
    shutdown: (): Promise<ExportReport> =>
      reported(async () => {
        let failure: unknown;
        await provider.shutdown().catch((error: unknown) => {
          failure = error;
        });
        // The batch processor skips the exporter's shutdown when its last flush failed.
        await reporting?.shutdown();
        if (failure !== undefined) throw failure;
      }),
  };
}

/** A report for a failure of the in-memory side alone (no exporter of the user's). */
function reportOf(error: Error): ExportReport {
  return { ok: false, failedSpans: 0, pendingSpans: 0, reasons: [describeExportError(error)] };
}
