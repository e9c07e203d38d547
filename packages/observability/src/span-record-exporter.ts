import type { SpanRecord } from '@mh/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { spanRecordFromOtel } from './span-record-from-otel.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
const SUCCESS: ExportResult = { code: 0 };

/**
 * An in-memory exporter that keeps finished spans as core's plain `SpanRecord`s, for metrics,
 * eval and the terminal tree. It keeps them after shutdown, until `clear()`.
 */
export class SpanRecordExporter implements SpanExporter {
  readonly #records: SpanRecord[] = [];

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    for (const span of spans) this.#records.push(spanRecordFromOtel(span));
    resultCallback(SUCCESS);
  }

  /** The spans exported so far, in export order. Do not mutate them. */
  records(): SpanRecord[] {
    return this.#records.slice();
  }

  /** Forgets every record. */
  clear(): void {
    this.#records.length = 0;
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}
