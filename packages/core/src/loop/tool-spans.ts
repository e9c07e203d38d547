import { HarnessError } from '../errors.js';
import type { ToolResultBlock, ToolUseBlock } from '../messages/message.js';
import type { ToolCallStatus, ToolOutcome } from '../ports/tool-executor.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import { toolCallDetails } from '../tracing/content-capture.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A, GEN_AI_OPERATIONS, SPAN_EVENTS } from '../tracing/vocabulary.js';

/**
 * The `mh.tool` spans of one batch of calls, by call id: each opened on the call's `tool-start`
 * and ended on its `tool-end` (or when the batch stops without one).
 */
export class ToolSpans {
  readonly #tracer: Tracer;
  readonly #parent: Span;
  readonly #open = new Map<string, { readonly call: ToolUseBlock; readonly span: Span }>();

  constructor(tracer: Tracer, parent: Span) {
    this.#tracer = tracer;
    this.#parent = parent;
  }

  /** Whether the call's span is open (it started and has not ended). */
  has(callId: string): boolean {
    return this.#open.has(callId);
  }

  /** Opens the call's span under the turn's. */
  open(call: ToolUseBlock): void {
    const span = this.#tracer.startSpan(SPAN_NAMES.tool, {
      parent: this.#parent,
      attributes: {
        [A.operationName]: GEN_AI_OPERATIONS.tool,
        [A.toolName]: call.name,
        [A.toolCallId]: call.id,
        [A.toolType]: 'function',
      },
    });
    this.#open.set(call.id, { call, span });
  }

  /**
   * Runs `run` with the call's span active, so spans the tool opens nest under it: the executor's
   * `scope`. Directly when the call has no open span.
   */
  readonly scope = <T>(call: ToolUseBlock, run: () => T): T => {
    const open = this.#open.get(call.id);
    return open ? this.#tracer.withSpan(open.span, run) : run();
  };

  /** Ends the call's span with how it ended; `result` is what the model reads. */
  end(outcome: ToolOutcome, result: ToolResultBlock): void {
    const open = this.#take(outcome.call.id);
    if (!open) return;
    const { span, call } = open;
    span.setAttributes({ [A.toolStatus]: outcome.status, [A.toolAttempts]: outcome.attempts });
    if (this.#tracer.captureContent === true)
      span.addEvent(SPAN_EVENTS.toolCallDetails, toolCallDetails(call, result));
    if (outcome.status !== 'ok')
      recordFailure(span, new HarnessError(`${call.name}: ${outcome.status}`), outcome.status);
    span.end();
  }

  /** Ends the call's span as failed by `error` (a journal hook threw). */
  fail(call: ToolUseBlock, error: unknown): void {
    const open = this.#take(call.id);
    if (!open) return;
    recordFailure(open.span, error);
    open.span.end();
  }

  /**
   * Ends the spans of calls that got no `tool-end`: `cancelled` when the batch stopped early (an
   * abort, a failure, a consumer that left), `error` when the executor finished without answering.
   */
  endUnfinished(status: Extract<ToolCallStatus, 'cancelled' | 'error'>): void {
    for (const { call, span } of this.#open.values()) {
      span.setAttribute(A.toolStatus, status);
      recordFailure(span, new HarnessError(`${call.name}: ${status}`), status);
      span.end();
    }
    this.#open.clear();
  }

  #take(callId: string): { readonly call: ToolUseBlock; readonly span: Span } | undefined {
    const open = this.#open.get(callId);
    this.#open.delete(callId);
    return open;
  }
}
