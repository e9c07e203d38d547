/** One export your exporter could not complete: those spans did not reach it. */
export interface ExportFailure {
  /** The exporter's class name, e.g. `OTLPTraceExporter`. */
  readonly exporter: string;
  /** How many spans this failure lost (or, after a timeout, stopped waiting for). */
  readonly spans: number;
  /** Why, as the exporter reported it (`connect ECONNREFUSED 127.0.0.1:4318`, an HTTP status). */
  readonly error: Error;
}

/**
 * What `flush()` and `shutdown()` of `createTracing` resolve with: how the export went since the
 * previous report (spans lost during the run included). They never reject for an export failure.
 */
export interface ExportReport {
  /** True when every span handed to the exporter was exported and nothing failed. */
  readonly ok: boolean;
  /** Spans the exporter reported as not exported (collector down, HTTP error, …). */
  readonly failedSpans: number;
  /** Spans still unconfirmed when the wait ended after `exportTimeoutMs`; treat them as lost. */
  readonly pendingSpans: number;
  /** One line per distinct cause, e.g. `connect ECONNREFUSED 127.0.0.1:4318`; empty when ok. */
  readonly reasons: readonly string[];
}
