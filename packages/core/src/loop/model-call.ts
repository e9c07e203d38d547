import { HarnessError, ProviderError } from '../errors.js';
import type { ContentBlock } from '../messages/message.js';
import { messageProblem } from '../messages/shape.js';
import { addUsage, promptTokens, type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { OutputDelta, OutputDeltas } from '../output/deltas.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { ModelRequest, Provider, StreamEvent } from '../ports/provider.js';
import { type Attributes, SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import type { PricingTable } from '../pricing/prices.js';
import { isErrorObject, thrownText } from '../support/thrown-text.js';
import { finishReason, inferenceDetails } from '../tracing/content-capture.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A, GEN_AI_OPERATIONS, SPAN_EVENTS } from '../tracing/vocabulary.js';
import { ABORTED, type RunSignal } from './run-signal.js';

/** The last event of a complete model call. */
export type MessageEnd = Extract<StreamEvent, { type: 'message-end' }>;

/** How one model call ended. Exactly one of: `end`, `error`, or neither (aborted). */
export interface ModelCallOutcome {
  /** The complete call, when it completed. */
  readonly end?: MessageEnd;
  /** Its cost in USD (0 without a price), discarded attempts included. */
  readonly costUsd: number;
  /** Tokens of attempts a retry discarded (`stream-reset` events); paid for, so counted. */
  readonly discardedUsage: Usage;
  /** Why it failed, when it failed other than by abort (a `ProviderError`, usually). */
  readonly error?: Error;
  /** What streamed before an abort: text so far and tool calls whose arguments completed. */
  readonly partial: readonly ContentBlock[];
}

/** Everything a model call needs. */
export interface ModelCallContext {
  readonly provider: Provider;
  readonly run: RunSignal;
  readonly tracer: Tracer;
  readonly parent: Span;
  readonly pricing: PricingTable;
  /** Time source of the time to first token (default: the system clock). */
  readonly clock?: Clock;
  /** Follows the typed answer as it streams (with typed output): yields its `output-delta`s. */
  readonly output?: OutputDeltas;
}

/**
 * Streams one model call, yielding its events to the loop's consumer one at a time, inside an
 * `mh.model` span. It never throws: provider failures come back as `error`, and an abort (even by
 * a stream that ignores its signal) comes back as an outcome with neither `end` nor `error`.
 */
export async function* streamModelCall(
  request: ModelRequest,
  context: ModelCallContext,
): AsyncGenerator<StreamEvent | OutputDelta, ModelCallOutcome, void> {
  const { provider, run } = context;
  const span = context.tracer.startSpan(SPAN_NAMES.model, {
    parent: context.parent,
    attributes: {
      [A.operationName]: GEN_AI_OPERATIONS.model,
      [A.providerName]: provider.name,
      [A.requestModel]: request.model,
      [A.requestMaxTokens]: request.maxOutputTokens,
      [A.requestTemperature]: request.temperature,
      [A.outputType]: request.output === undefined ? undefined : 'json',
    },
  });
  const clock = context.clock ?? systemClock;
  const startedAt = clock.now();
  let firstChunkAt: number | undefined;
  let attempts = 1;
  const partial: ContentBlock[] = [];
  let text = '';
  const flushText = (): void => {
    if (text.length > 0) partial.push({ type: 'text', text });
    text = '';
  };
  let end: MessageEnd | undefined;
  let failure: Error | undefined;
  let discardedUsage: Usage = ZERO_USAGE;
  // Running totals of the current attempt: if it fails, its tokens were still paid for.
  let attemptUsage: Usage | undefined;
  try {
    const iterator = provider.stream(request, { signal: run.signal })[Symbol.asyncIterator]();
    // The call starts with the first pull: with the call's span active there, spans the provider
    // opens (its HTTP client's, a durable engine's step) nest under it. One switch per call.
    let pulled = false;
    try {
      while (end === undefined) {
        const next = await run.race(
          pulled ? iterator.next() : context.tracer.withSpan(span, () => iterator.next()),
        );
        pulled = true;
        if (next === ABORTED || next.done) break;
        const event = next.value;
        if (firstChunkAt === undefined && isChunk(event)) firstChunkAt = clock.now();
        if (event.type === 'text-delta') text += event.text;
        else if (event.type === 'tool-call-end') {
          flushText();
          if (
            typeof event.id === 'string' &&
            event.id !== '' &&
            typeof event.name === 'string' &&
            event.name !== ''
          ) {
            partial.push({
              type: 'tool_use',
              id: event.id,
              name: event.name,
              input: event.input ?? {},
            });
          }
        } else if (event.type === 'stream-reset') {
          partial.length = 0;
          text = '';
          if (event.usage) discardedUsage = addUsage(discardedUsage, event.usage);
          attemptUsage = undefined;
          attempts++;
          span.addEvent(SPAN_EVENTS.retry, {
            [A.retryAttempt]: event.attempt,
            [A.retryReason]: event.reason,
          });
        } else if (event.type === 'message-start' && event.id)
          span.setAttribute(A.responseId, event.id);
        else if (event.type === 'usage') attemptUsage = event.usage;
        else if (event.type === 'message-end') end = event;
        yield event;
        const delta = context.output?.see(event);
        if (delta !== undefined) yield delta;
      }
    } finally {
      // Closing a stream abandoned mid-way must neither block nor throw into the loop.
      iterator.return?.()?.catch(() => {});
    }
  } catch (error) {
    if (!run.aborted)
      failure = isErrorObject(error)
        ? error
        : new ProviderError(thrownText(`Provider ${provider.name}`, error), { kind: 'server' });
  }
  flushText();
  if (end === undefined && failure === undefined && !run.aborted) {
    failure = new ProviderError('The stream ended without a message-end event', {
      kind: 'network',
      provider: provider.name,
    });
  }
  if (end !== undefined) {
    const problem =
      end.message?.role === 'assistant'
        ? messageProblem(end.message)
        : 'message: expected an assistant message';
    if (problem !== undefined) {
      failure = new HarnessError(
        `Provider ${provider.name} returned a malformed message: ${problem}`,
      );
      end = undefined;
    }
  }
  if (end === undefined && attemptUsage) discardedUsage = addUsage(discardedUsage, attemptUsage);
  const discardedCost = context.pricing.cost(request.model, discardedUsage) ?? 0;
  span.setAttributes({
    [A.retryAttempts]: attempts,
    [A.timeToFirstTokenMs]: firstChunkAt === undefined ? undefined : firstChunkAt - startedAt,
  });
  if (context.tracer.captureContent === true) {
    span.addEvent(
      SPAN_EVENTS.inferenceDetails,
      inferenceDetails(request, end && { message: end.message, stopReason: end.stopReason }),
    );
  }
  if (failure !== undefined || end === undefined) {
    span.setAttributes({ ...usageAttributes(discardedUsage), [A.costUsd]: discardedCost });
    if (failure) recordFailure(span, failure);
    span.end();
    return { costUsd: discardedCost, discardedUsage, error: failure, partial };
  }
  const model = end.model ?? request.model;
  // A provider may report a model id we have no price for (an alias, a snapshot): the requested
  // model's price then applies, so the cost guard the caller configured keeps working.
  const price =
    context.pricing.cost(model, end.usage) ?? context.pricing.cost(request.model, end.usage) ?? 0;
  const costUsd = price + discardedCost;
  span.setAttributes(usageAttributes(addUsage(end.usage, discardedUsage)));
  span.setAttributes({
    [A.responseModel]: model,
    [A.costUsd]: costUsd,
    [A.retryDiscardedOutputTokens]: discardedUsage.outputTokens,
    [A.responseFinishReasons]: [finishReason(end.stopReason)],
    [A.stopReason]: end.stopReason,
  });
  span.end();
  return { end, costUsd, discardedUsage, partial };
}

/** Whether an event is streamed content (the first one marks the time to first token). */
function isChunk(event: StreamEvent): boolean {
  return (
    event.type === 'text-delta' ||
    event.type === 'thinking-delta' ||
    event.type === 'tool-call-start'
  );
}

/** A call's usage as span attributes: GenAI counts (prompt includes cache) and ours. */
export function usageAttributes(usage: Usage): Attributes {
  return {
    [A.usageInputTokens]: promptTokens(usage),
    [A.usageOutputTokens]: usage.outputTokens,
    [A.usageCacheReadTokens]: usage.cacheReadTokens,
    [A.usageCacheWriteTokens]: usage.cacheWriteTokens,
    [A.cacheReadTokens]: usage.cacheReadTokens,
    [A.cacheWriteTokens]: usage.cacheWriteTokens,
  };
}
