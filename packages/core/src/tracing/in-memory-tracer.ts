import type { Clock } from '../ports/clock.js';
import type { Attributes, AttributeValue, Span, SpanOptions, Tracer } from '../ports/tracer.js';
import { isErrorObject, thrownText } from '../support/thrown-text.js';
import type { SpanEventRecord, SpanRecord, SpanStatus } from './span-record.js';
import { SPAN_EVENTS } from './vocabulary.js';

/** Options of `InMemoryTracer`. */
export interface InMemoryTracerOptions {
  /** Record message content as span events (default false; nothing is redacted here). */
  readonly captureContent?: boolean;
  /** Time source for span and event times (default: the high-resolution performance clock). */
  readonly clock?: Pick<Clock, 'now'>;
}

const highResolutionClock: Pick<Clock, 'now'> = {
  now: (): number => performance.timeOrigin + performance.now(),
};

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}

function copyAttributes(target: Record<string, AttributeValue>, source: Attributes): void {
  for (const key in source) {
    const value = source[key];
    if (value !== undefined) target[key] = value;
  }
}

/** A span of an `InMemoryTracer`; its ids let children find their parent. */
class RecordingSpan implements Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly #tracer: InMemoryTracer;
  readonly #finish: (record: SpanRecord) => void;
  readonly #name: string;
  readonly #parentSpanId: string | undefined;
  readonly #startTimeMs: number;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #attributes: Record<string, AttributeValue> = {};
  readonly #events: SpanEventRecord[] = [];
  #status: SpanStatus = 'unset';
  #ended = false;

  constructor(init: {
    readonly tracer: InMemoryTracer;
    readonly name: string;
    readonly traceId: string;
    readonly spanId: string;
    readonly parentSpanId: string | undefined;
    readonly clock: Pick<Clock, 'now'>;
    readonly finish: (record: SpanRecord) => void;
  }) {
    this.#tracer = init.tracer;
    this.#name = init.name;
    this.traceId = init.traceId;
    this.spanId = init.spanId;
    this.#parentSpanId = init.parentSpanId;
    this.#clock = init.clock;
    this.#finish = init.finish;
    this.#startTimeMs = init.clock.now();
  }

  /** Whether this span belongs to `tracer`. */
  belongsTo(tracer: InMemoryTracer): boolean {
    return this.#tracer === tracer;
  }

  setAttribute(key: string, value: AttributeValue): void {
    if (!this.#ended && value !== undefined) this.#attributes[key] = value;
  }

  setAttributes(attributes: Attributes): void {
    if (!this.#ended) copyAttributes(this.#attributes, attributes);
  }

  addEvent(name: string, attributes: Attributes = {}): void {
    if (this.#ended) return;
    const copy: Record<string, AttributeValue> = {};
    copyAttributes(copy, attributes);
    this.#events.push({ name, timeMs: this.#clock.now(), attributes: copy });
  }

  recordError(error: unknown): void {
    if (this.#ended) return;
    this.#status = 'error';
    this.addEvent(SPAN_EVENTS.exception, {
      'exception.type': exceptionType(error),
      'exception.message': thrownText('The operation', error),
    });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const endTimeMs = Math.max(this.#startTimeMs, this.#clock.now());
    this.#finish({
      name: this.#name,
      spanId: this.spanId,
      traceId: this.traceId,
      ...(this.#parentSpanId === undefined ? {} : { parentSpanId: this.#parentSpanId }),
      startTimeMs: this.#startTimeMs,
      endTimeMs,
      attributes: this.#attributes,
      status: this.#status,
      events: this.#events,
    });
  }
}

/**
 * A `Tracer` that keeps every finished span as a plain `SpanRecord`, cheap enough to leave on in
 * eval runs: no dependencies, no export, no context propagation (`withSpan` just calls `fn`, so a
 * tool's own OpenTelemetry spans do not nest here; use `@mh/observability` for that). Records
 * accumulate until `clear()`.
 * @example
 * const tracer = new InMemoryTracer();
 * for await (const _event of runLoop({ provider, model, history, tracer }));
 * const metrics = metricsFromSpans(tracer.records());
 */
export class InMemoryTracer implements Tracer {
  /** Whether the loop records message content as span events. */
  readonly captureContent: boolean;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #finished: SpanRecord[] = [];
  // A random per-tracer prefix keeps ids of two tracers apart when their records are merged.
  readonly #prefix = hex(Math.floor(Math.random() * 0xffffffff), 8);
  #nextId = 0;

  constructor(options: InMemoryTracerOptions = {}) {
    this.captureContent = options.captureContent === true;
    this.#clock = options.clock ?? highResolutionClock;
  }

  startSpan(name: string, options: SpanOptions = {}): Span {
    const parent = options.parent;
    const id = ++this.#nextId;
    const inherited =
      parent instanceof RecordingSpan && parent.belongsTo(this) ? parent : undefined;
    const traceId = inherited?.traceId ?? `${this.#prefix}${hex(0, 16)}${hex(id, 8)}`;
    const span = new RecordingSpan({
      tracer: this,
      name,
      traceId,
      spanId: `${this.#prefix}${hex(id, 8)}`,
      parentSpanId: inherited?.spanId,
      clock: this.#clock,
      finish: (record) => this.#finished.push(record),
    });
    if (options.attributes) span.setAttributes(options.attributes);
    return span;
  }

  withSpan<T>(_span: Span, fn: () => T): T {
    return fn();
  }

  /** The finished spans, in the order they ended. Do not mutate them. */
  records(): SpanRecord[] {
    return this.#finished.slice();
  }

  /** Forgets every finished span. */
  clear(): void {
    this.#finished.length = 0;
  }
}

/** An error's class name, else the type of what was thrown; never throws (a hostile `name` getter). */
function exceptionType(error: unknown): string {
  try {
    if (isErrorObject(error) && typeof error.name === 'string') return error.name;
  } catch {
    // Fall through: a value whose prototype or name cannot be read is described by its type.
  }
  return typeof error;
}
