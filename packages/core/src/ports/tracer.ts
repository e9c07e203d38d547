/** A span attribute value (OpenTelemetry's primitive types). */
export type AttributeValue = string | number | boolean | readonly string[] | readonly number[];
/** Span attributes. */
export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

/** One unit of traced work. */
export interface Span {
  /** Sets or replaces one attribute. */
  setAttribute(key: string, value: AttributeValue): void;
  /** Sets several attributes; `undefined` values are skipped. */
  setAttributes(attributes: Attributes): void;
  /** Records a point-in-time event on the span. */
  addEvent(name: string, attributes?: Attributes): void;
  /** Marks the span failed and records the error. */
  recordError(error: unknown): void;
  /** Ends the span; later calls are ignored. */
  end(): void;
}

/** Options of `Tracer.startSpan`. */
export interface SpanOptions {
  /** Parent span; absent for a root. */
  readonly parent?: Span;
  /** Initial attributes. */
  readonly attributes?: Attributes;
}

/**
 * The tracing port. `@mh/observability` implements it on OpenTelemetry, `InMemoryTracer` keeps
 * plain `SpanRecord`s, and the default does nothing. The loop opens `mh.run` → `mh.turn` →
 * {`mh.model`, `mh.tool`} spans through it, with the attributes of `SPAN_ATTRIBUTES`.
 */
export interface Tracer {
  /**
   * Whether the loop records message content (system prompt, messages, tool arguments and
   * results) as span events. Off when absent: spans then carry counts, sizes and names only.
   * An implementation that turns it on is responsible for redacting secrets before export.
   */
  readonly captureContent?: boolean;
  /** Starts a span. */
  startSpan(name: string, options?: SpanOptions): Span;
  /** Runs `fn` with `span` as the active span, so code inside (a tool) can nest its own spans. */
  withSpan<T>(span: Span, fn: () => T): T;
}

const noopSpan: Span = Object.freeze({
  setAttribute: (): void => {},
  setAttributes: (): void => {},
  addEvent: (): void => {},
  recordError: (): void => {},
  end: (): void => {},
});

/** A tracer that records nothing. */
export const noopTracer: Tracer = Object.freeze({
  startSpan: (): Span => noopSpan,
  withSpan: <T>(_span: Span, fn: () => T): T => fn(),
});

/** Span names of the loop. */
export const SPAN_NAMES: {
  readonly run: 'mh.run';
  readonly turn: 'mh.turn';
  readonly model: 'mh.model';
  readonly tool: 'mh.tool';
  readonly compaction: 'mh.compaction';
} = Object.freeze({
  run: 'mh.run',
  turn: 'mh.turn',
  model: 'mh.model',
  tool: 'mh.tool',
  compaction: 'mh.compaction',
} as const);
