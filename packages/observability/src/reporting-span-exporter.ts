import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { ExportFailure, ExportReport } from './export-report.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
/** `ExportResultCode.SUCCESS` of `@opentelemetry/core`, which is not our dependency. */
const SUCCESS = 0;
const FAILED = 1;

/** One `export` call still waiting for its result. */
interface Batch {
  readonly spans: number;
  /** Counted in a report already: a late result is passed on but not counted again. */
  counted: boolean;
}

/** A one-line cause: the error's message, plus the HTTP status `OTLPExporterError` carries. */
export function describeExportError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const status = typeof code === 'number' ? ` (HTTP ${code})` : '';
  return `${error.message || error.name}${status}`.replace(/\s+/g, ' ').trim();
}

/**
 * Wraps the user's exporter to count what it could not export and why. The OpenTelemetry SDK
 * sends a failed background export only to its diag logger (silent by default) and rejects
 * `forceFlush`/`shutdown` with the raw error; this lets `createTracing` report both instead.
 */
export class ReportingSpanExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #onFailure: (failure: ExportFailure) => void;
  readonly #name: string;
  readonly #inFlight = new Set<Batch>();
  #idleWaiters: (() => void)[] = [];
  #failedSpans = 0;
  #pendingSpans = 0;
  #reasons = new Set<string>();
  #shutdown: Promise<void> | undefined;

  constructor(inner: SpanExporter, onFailure: (failure: ExportFailure) => void) {
    this.#inner = inner;
    this.#onFailure = onFailure;
    this.#name = inner.constructor?.name || 'SpanExporter';
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const batch: Batch = { spans: spans.length, counted: false };
    this.#inFlight.add(batch);
    let answered = false;
    const done = (result: ExportResult): void => {
      if (answered) return;
      answered = true;
      this.#inFlight.delete(batch);
      if (result.code !== SUCCESS && !batch.counted) {
        batch.counted = true;
        this.#failedSpans += batch.spans;
        this.#fail(batch.spans, result.error ?? new Error('the exporter reported a failure'));
      }
      if (this.#inFlight.size === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
      resultCallback(result);
    };
    try {
      this.#inner.export(spans, done);
    } catch (error) {
      done({ code: FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  /** Resolves once no export is waiting for its result. */
  idle(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * What failed since the previous report. With `timedOutAfterMs`, exports still unanswered are
   * given up on: counted as pending and reported once as a failure, never again when they end.
   */
  takeReport(timedOutAfterMs?: number, unexplained?: Error): ExportReport {
    if (timedOutAfterMs !== undefined) {
      const batches = [...this.#inFlight].filter((batch) => !batch.counted);
      const spans = batches.reduce((sum, batch) => sum + batch.spans, 0);
      for (const batch of batches) batch.counted = true;
      if (spans > 0) {
        this.#pendingSpans += spans;
        this.#fail(spans, new Error(`no answer from the exporter within ${timedOutAfterMs} ms`));
      }
    }
    // A rejection none of the export results explains (the exporter's own shutdown failing).
    if (unexplained && this.#reasons.size === 0)
      this.#reasons.add(describeExportError(unexplained));
    const report: ExportReport = {
      ok: this.#failedSpans === 0 && this.#pendingSpans === 0 && this.#reasons.size === 0,
      failedSpans: this.#failedSpans,
      pendingSpans: this.#pendingSpans,
      reasons: [...this.#reasons],
    };
    this.#failedSpans = 0;
    this.#pendingSpans = 0;
    this.#reasons = new Set();
    return report;
  }

  #fail(spans: number, error: Error): void {
    this.#reasons.add(describeExportError(error));
    try {
      this.#onFailure({ exporter: this.#name, spans, error });
    } catch {
      // A throwing handler must not break the exporter's callback chain, nor the agent run.
    }
  }

  shutdown(): Promise<void> {
    // Called by the batch processor when its last flush succeeded, and by createTracing always.
    this.#shutdown ??= Promise.resolve().then(() => this.#inner.shutdown());
    return this.#shutdown;
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}
