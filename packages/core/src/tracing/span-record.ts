import type { AttributeValue } from '../ports/tracer.js';

/** How a span ended, as OpenTelemetry's status codes say: unset unless marked. */
export const SPAN_STATUSES = ['unset', 'ok', 'error'] as const;
/** How a span ended. The loop marks failures `error` and leaves everything else `unset`. */
export type SpanStatus = (typeof SPAN_STATUSES)[number];

/** A point-in-time event on a finished span. */
export interface SpanEventRecord {
  /** The event's name, e.g. `mh.retry` or `exception`. */
  readonly name: string;
  /** When it happened, milliseconds since the epoch (fractional). */
  readonly timeMs: number;
  /** Its attributes. */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
}

/**
 * A finished span as plain data: what `InMemoryTracer` produces and what `@mh/observability`
 * maps OpenTelemetry spans to. Metrics, eval and the terminal tree read only this shape.
 */
export interface SpanRecord {
  /** The span's name, e.g. `mh.model` (see `SPAN_NAMES`). */
  readonly name: string;
  /** Its id: 16 lowercase hex digits. */
  readonly spanId: string;
  /** Its trace's id: 32 lowercase hex digits. */
  readonly traceId: string;
  /** The parent's id; absent for a root. */
  readonly parentSpanId?: string;
  /** Start, milliseconds since the epoch (fractional). */
  readonly startTimeMs: number;
  /** End, milliseconds since the epoch (fractional); never before `startTimeMs`. */
  readonly endTimeMs: number;
  /** Its attributes (see `SPAN_ATTRIBUTES`). */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** How it ended. */
  readonly status: SpanStatus;
  /** Its events, in the order they were recorded. */
  readonly events: readonly SpanEventRecord[];
}

/** A span's duration in milliseconds. */
export function spanDurationMs(record: SpanRecord): number {
  return record.endTimeMs - record.startTimeMs;
}

/**
 * The children of every span, each list in start order. A span whose parent is not among
 * `records` is listed under the key `undefined`, with the roots.
 */
export function childrenBySpanId(
  records: readonly SpanRecord[],
): Map<string | undefined, SpanRecord[]> {
  const ids = new Set(records.map((record) => record.spanId));
  const children = new Map<string | undefined, SpanRecord[]>();
  for (const record of records) {
    const parent =
      record.parentSpanId !== undefined && ids.has(record.parentSpanId)
        ? record.parentSpanId
        : undefined;
    const list = children.get(parent);
    if (list) list.push(record);
    else children.set(parent, [record]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startTimeMs - b.startTimeMs);
  return children;
}

/** `root` and all its descendants among `records`, root first, then depth-first in start order. */
export function subtreeOf(records: readonly SpanRecord[], root: SpanRecord): SpanRecord[] {
  const children = childrenBySpanId(records);
  const out: SpanRecord[] = [];
  const visit = (record: SpanRecord): void => {
    out.push(record);
    for (const child of children.get(record.spanId) ?? []) visit(child);
  };
  visit(root);
  return out;
}
