import type { AttributeValue, SpanEventRecord, SpanRecord, SpanStatus } from '@mh/core';
import { type HrTime, type Attributes as OtelAttributes, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

function milliseconds(time: HrTime): number {
  return time[0] * 1000 + time[1] / 1e6;
}

function statusOf(code: SpanStatusCode): SpanStatus {
  if (code === SpanStatusCode.ERROR) return 'error';
  return code === SpanStatusCode.OK ? 'ok' : 'unset';
}

/** An OpenTelemetry value as ours: arrays lose their empty slots; mixed arrays become strings. */
function recordValue(value: unknown): AttributeValue | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (!Array.isArray(value)) return undefined;
  const present = value.filter((item) => item !== null && item !== undefined);
  if (present.every((item) => typeof item === 'number')) return present as number[];
  return present.map(String);
}

function attributesOf(attributes: OtelAttributes | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const key in attributes) {
    const value = recordValue(attributes[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** A finished OpenTelemetry span as core's plain `SpanRecord` (for metrics, eval and the tree). */
export function spanRecordFromOtel(span: ReadableSpan): SpanRecord {
  const { spanId, traceId } = span.spanContext();
  const parentSpanId = span.parentSpanContext?.spanId;
  const events: SpanEventRecord[] = span.events.map((event) => ({
    name: event.name,
    timeMs: milliseconds(event.time),
    attributes: attributesOf(event.attributes),
  }));
  return {
    name: span.name,
    spanId,
    traceId,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    startTimeMs: milliseconds(span.startTime),
    endTimeMs: milliseconds(span.endTime),
    attributes: attributesOf(span.attributes),
    status: statusOf(span.status.code),
    events,
  };
}
