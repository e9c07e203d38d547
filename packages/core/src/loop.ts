import { AsyncQueue } from './async-queue.js';
import { type Clock, systemClock } from './clock.js';
import {
  CancelledError,
  ConfigError,
  type Guard,
  GuardTrippedError,
  HarnessError,
  ProviderError,
} from './errors.js';
import { type HistoryRepair, repairHistory, validateHistory } from './history.js';
import { DEFAULT_MAX_TURNS, type Limits, RepeatedCallCounter, validateLimits } from './limits.js';
import {
  type ContentBlock,
  type Message,
  messageText,
  newMessageId,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolUsesOf,
} from './messages.js';
import { defaultPricing, type PricingTable } from './pricing.js';
import type { ModelRequest, Provider, StopReason, StreamEvent } from './provider.js';
import type { AgentEvent, RunResult, RunStatus } from './run-result.js';
import type { ToolExecutor, ToolOutcome } from './tool.js';
import { noopTracer, SPAN_NAMES, type Span, type Tracer } from './tracer.js';
import { addUsage, totalTokens, type Usage, ZERO_USAGE } from './usage.js';

/** Everything one run of the loop needs. */
export interface LoopOptions {
  /** The model provider. */
  readonly provider: Provider;
  /** Model id sent with every request. */
  readonly model: string;
  /** System prompt. */
  readonly system?: string;
  /** History to continue, ending with the new user message. Repaired first if it is invalid. */
  readonly history: readonly Message[];
  /** Runs tool calls; without it every call is answered "unknown tool". */
  readonly tools?: ToolExecutor;
  /** Guards of this run. */
  readonly limits?: Limits;
  /** Cancels the run; it then ends with status `cancelled` and a valid history. */
  readonly signal?: AbortSignal;
  /** Receives the run's spans (default: none). */
  readonly tracer?: Tracer;
  /** Parent of the run span (an enclosing span of the caller's). */
  readonly parentSpan?: Span;
  /** Time source for the hard timeout (default: the system clock). */
  readonly clock?: Clock;
  /** Prices used for cost and the cost guard (default: the built-in table). */
  readonly pricing?: PricingTable;
  /** Cap on generated tokens per model call. */
  readonly maxOutputTokens?: number;
  /** Sampling temperature. */
  readonly temperature?: number;
  /** Stop sequences. */
  readonly stopSequences?: readonly string[];
  /** Run id (default: a new one). */
  readonly runId?: string;
}

type Stop =
  | { readonly status: 'cancelled'; readonly error: CancelledError }
  | { readonly status: 'guard'; readonly guard: Guard; readonly error: GuardTrippedError }
  | { readonly status: 'error'; readonly error: Error };

const ABORTED = Symbol('aborted');

function checkOptions(options: LoopOptions): Limits {
  if (options === null || typeof options !== 'object')
    throw new ConfigError('options', 'expected an object');
  if (!options.provider || typeof options.provider.stream !== 'function') {
    throw new ConfigError('provider', 'expected a Provider with a stream() method');
  }
  if (typeof options.model !== 'string' || options.model.length === 0) {
    throw new ConfigError('model', 'expected a non-empty string');
  }
  if (options.system !== undefined && typeof options.system !== 'string') {
    throw new ConfigError('system', 'expected a string');
  }
  if (!Array.isArray(options.history))
    throw new ConfigError('history', 'expected an array of messages');
  if (options.tools !== undefined && typeof options.tools?.execute !== 'function') {
    throw new ConfigError('tools', 'expected a ToolExecutor');
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new ConfigError('signal', 'expected an AbortSignal');
  }
  for (const key of ['maxOutputTokens'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new ConfigError(key, `expected a positive integer, got ${String(value)}`);
    }
  }
  if (
    options.temperature !== undefined &&
    (typeof options.temperature !== 'number' ||
      !Number.isFinite(options.temperature) ||
      options.temperature < 0)
  ) {
    throw new ConfigError(
      'temperature',
      `expected a number >= 0, got ${String(options.temperature)}`,
    );
  }
  const limits = validateLimits(options.limits);
  if (
    limits.maxCostUsd !== undefined &&
    (options.pricing ?? defaultPricing).lookup(options.model) === undefined
  ) {
    throw new ConfigError(
      'limits.maxCostUsd',
      `no price is known for model ${options.model}; add one with pricing`,
    );
  }
  return limits;
}

/**
 * The agent loop: turns until the model stops calling tools, a guard trips, the run is cancelled or
 * it fails. It yields every event as it happens and waits for the consumer between events
 * (backpressure: nothing buffers without bound), and returns the `RunResult` (also yielded as the
 * last event, `run-end`). The history it returns always satisfies the pairing invariant.
 * Configuration errors throw `ConfigError` before the first event; failures during the run end it
 * with status `error` instead of throwing.
 */
export async function* runLoop(options: LoopOptions): AsyncGenerator<AgentEvent, RunResult, void> {
  const limits = checkOptions(options);
  const clock = options.clock ?? systemClock;
  const tracer = options.tracer ?? noopTracer;
  const pricing = options.pricing ?? defaultPricing;
  const maxTurns = limits.maxTurns ?? DEFAULT_MAX_TURNS;
  const runId = options.runId ?? newMessageId('run');
  const startedAt = clock.now();

  // One internal signal for everything in flight: the caller's signal or the hard timeout.
  const controller = new AbortController();
  let abortReason: 'cancelled' | 'timeout' | undefined;
  const abort = (reason: 'cancelled' | 'timeout'): void => {
    if (controller.signal.aborted) return;
    abortReason = reason;
    controller.abort(reason);
  };
  const onCallerAbort = (): void => abort('cancelled');
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) abort('cancelled');
  const timerController = new AbortController();
  if (limits.timeoutMs !== undefined) {
    clock.sleep(limits.timeoutMs, timerController.signal).then(
      () => abort('timeout'),
      () => {},
    );
  }
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    if (controller.signal.aborted) resolve(ABORTED);
    else controller.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
  });
  const race = <T>(promise: Promise<T>): Promise<T | typeof ABORTED> =>
    Promise.race([promise, aborted]);

  const runSpan = tracer.startSpan(SPAN_NAMES.run, {
    parent: options.parentSpan,
    attributes: {
      'mh.run.id': runId,
      'gen_ai.request.model': options.model,
      'gen_ai.provider.name': options.provider.name,
    },
  });

  const repairs: HistoryRepair[] = [];
  const initial = repairHistory(options.history, { reason: 'interrupted' });
  const history: Message[] = initial.history;
  const firstNewIndex = Math.max(0, history.length - 1);
  let usage: Usage = ZERO_USAGE;
  let costUsd = 0;
  let turns = 0;
  let lastText = '';
  let stopReason: StopReason | undefined;
  let stop: Stop | undefined;
  const repeats = new RepeatedCallCounter();

  const abortStop = (): Stop => {
    if (abortReason === 'timeout') {
      const limit = limits.timeoutMs ?? 0;
      return {
        status: 'guard',
        guard: 'timeout',
        error: new GuardTrippedError('timeout', limit, clock.now() - startedAt),
      };
    }
    return {
      status: 'cancelled',
      error: new CancelledError('Run cancelled', { cause: options.signal?.reason }),
    };
  };

  try {
    if (initial.repairs.length > 0) {
      repairs.push(...initial.repairs);
      yield { type: 'history-repair', repairs: initial.repairs };
    }
    yield { type: 'run-start', runId, model: options.model };

    while (stop === undefined) {
      if (controller.signal.aborted) {
        stop = abortStop();
        break;
      }
      if (turns >= maxTurns) {
        stop = {
          status: 'guard',
          guard: 'max-turns',
          error: new GuardTrippedError('max-turns', maxTurns, turns),
        };
        break;
      }
      turns++;
      yield { type: 'turn-start', turn: turns };
      const turnSpan = tracer.startSpan(SPAN_NAMES.turn, {
        parent: runSpan,
        attributes: { 'mh.turn': turns },
      });
      try {
        const violations = validateHistory(history);
        if (violations.length > 0) {
          throw new HarnessError(
            `History breaks the pairing invariant: ${violations.map((v) => v.detail).join('; ')}`,
          );
        }
        const request: ModelRequest = {
          model: options.model,
          system: options.system,
          messages: history.slice(),
          tools: options.tools?.specs() ?? [],
          maxOutputTokens: options.maxOutputTokens,
          temperature: options.temperature,
          stopSequences: options.stopSequences,
        };

        // --- model call ---
        const modelSpan = tracer.startSpan(SPAN_NAMES.model, {
          parent: turnSpan,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': options.provider.name,
            'gen_ai.request.model': options.model,
          },
        });
        let end: Extract<StreamEvent, { type: 'message-end' }> | undefined;
        const partial: ContentBlock[] = [];
        let partialText = '';
        const flushText = (): void => {
          if (partialText.length > 0) partial.push({ type: 'text', text: partialText });
          partialText = '';
        };
        // Keep what the model said before a cancel, whether the stream then threw or not;
        // unanswered calls get cancelled results at the end of the run.
        const keepPartial = (): void => {
          flushText();
          if (partial.length > 0) {
            const content = partial.slice();
            history.push({
              id: newMessageId(),
              role: 'assistant',
              content,
              meta: { partial: true },
            });
          }
        };
        try {
          const iterator = options.provider
            .stream(request, { signal: controller.signal })
            [Symbol.asyncIterator]();
          try {
            for (;;) {
              const next = await race(iterator.next());
              if (next === ABORTED) break;
              if (next.done) break;
              const event = next.value;
              if (event.type === 'text-delta') partialText += event.text;
              else if (event.type === 'tool-call-end') {
                flushText();
                partial.push({
                  type: 'tool_use',
                  id: event.id,
                  name: event.name,
                  input: event.input,
                });
              } else if (event.type === 'stream-reset') {
                partial.length = 0;
                partialText = '';
              } else if (event.type === 'message-end') end = event;
              yield event;
              if (end) break;
            }
          } finally {
            // Closing a stream that was abandoned mid-way must not block or throw into the loop.
            iterator.return?.()?.catch(() => {});
          }
        } catch (error) {
          modelSpan.recordError(error);
          modelSpan.end();
          if (controller.signal.aborted) {
            keepPartial();
            stop = abortStop();
          } else {
            stop = { status: 'error', error: toError(error) };
          }
          throw STOPPED;
        }
        if (controller.signal.aborted && end === undefined) {
          modelSpan.end();
          keepPartial();
          stop = abortStop();
          throw STOPPED;
        }
        if (end === undefined) {
          const error = new ProviderError('The stream ended without a message-end event', {
            kind: 'network',
            provider: options.provider.name,
          });
          modelSpan.recordError(error);
          modelSpan.end();
          stop = { status: 'error', error };
          throw STOPPED;
        }
        const model = end.model ?? options.model;
        const turnCost = pricing.cost(model, end.usage) ?? 0;
        usage = addUsage(usage, end.usage);
        costUsd += turnCost;
        stopReason = end.stopReason;
        modelSpan.setAttributes({
          'gen_ai.response.model': model,
          'gen_ai.usage.input_tokens':
            end.usage.inputTokens + end.usage.cacheReadTokens + end.usage.cacheWriteTokens,
          'gen_ai.usage.output_tokens': end.usage.outputTokens,
          'mh.cache.read_tokens': end.usage.cacheReadTokens,
          'mh.cache.write_tokens': end.usage.cacheWriteTokens,
          'mh.cost_usd': turnCost,
          'gen_ai.response.finish_reasons': [end.stopReason],
        });
        modelSpan.end();

        const assistant = end.message;
        // An empty assistant message is not appended: providers reject empty content.
        if (assistant.content.length > 0) history.push(assistant);
        lastText = messageText(assistant);
        const calls = toolUsesOf(assistant);

        // --- tool calls ---
        let repeatTrip: GuardTrippedError | undefined;
        if (calls.length > 0) {
          const toRun: ToolUseBlock[] = [];
          const results = new Map<string, ToolResultBlock>();
          for (const call of calls) {
            const count = repeats.count(call);
            const limit = limits.maxRepeatedCalls;
            const repeated = limit !== undefined && count > limit;
            if (repeatTrip || repeated) {
              repeatTrip ??= new GuardTrippedError(
                'max-repeated-calls',
                limit ?? 0,
                count,
                `${call.name} with the same arguments`,
              );
              // The model reads this (also in later runs of a session): only a call that really
              // repeated may be told so.
              const text = repeated
                ? `Not run: ${call.name} was already called ${limit} time(s) with these arguments; the run stops here.`
                : 'Not run: another call of this turn repeated too often; the run stops here.';
              results.set(call.id, toolResult(call.id, text, true));
            } else {
              toRun.push(call);
            }
          }
          if (toRun.length > 0) {
            const events = new AsyncQueue<AgentEvent>();
            void executeTools(options.tools, toRun, controller.signal, tracer, turnSpan, events);
            for (;;) {
              const next = await race(events.next());
              if (next === ABORTED || next.done) break;
              const event = next.value;
              if (event.type === 'tool-execution-end')
                results.set(event.outcome.call.id, event.outcome.result);
              yield event;
            }
          }
          const answered = calls
            .map((call) => results.get(call.id))
            .filter((result) => result !== undefined);
          if (answered.length > 0)
            history.push({ id: newMessageId(), role: 'user', content: answered });
          if (controller.signal.aborted) {
            stop = abortStop();
            throw STOPPED;
          }
        }
        turnSpan.end();
        yield { type: 'turn-end', turn: turns, usage: end.usage, costUsd: turnCost };

        if (repeatTrip) {
          stop = { status: 'guard', guard: 'max-repeated-calls', error: repeatTrip };
        } else if (calls.length === 0) {
          break;
        } else if (limits.maxTokens !== undefined && totalTokens(usage) >= limits.maxTokens) {
          stop = {
            status: 'guard',
            guard: 'max-tokens',
            error: new GuardTrippedError('max-tokens', limits.maxTokens, totalTokens(usage)),
          };
        } else if (limits.maxCostUsd !== undefined && reachesBudget(costUsd, limits.maxCostUsd)) {
          stop = {
            status: 'guard',
            guard: 'max-cost',
            error: new GuardTrippedError('max-cost', limits.maxCostUsd, costUsd),
          };
        }
      } catch (error) {
        turnSpan.end();
        if (error !== STOPPED) stop = { status: 'error', error: toError(error) };
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onCallerAbort);
    timerController.abort();
    // Whatever is still in flight (a hung tool, an abandoned stream) is released.
    abort('cancelled');
  }

  const status: RunStatus = stop?.status ?? 'completed';
  // Calls left without a result (cancellation, timeout, a failed executor) are answered here.
  const repaired = repairHistory(history, {
    reason: status === 'error' ? 'interrupted' : 'cancelled',
  });
  if (repaired.repairs.length > 0) {
    history.splice(0, history.length, ...repaired.history);
    repairs.push(...repaired.repairs);
    yield { type: 'history-repair', repairs: repaired.repairs };
  }
  const result: RunResult = {
    runId,
    status,
    guard: stop?.status === 'guard' ? stop.guard : undefined,
    error: stop?.error,
    text: lastText,
    stopReason,
    turns,
    usage,
    costUsd,
    durationMs: clock.now() - startedAt,
    messages: history,
    newMessages: history.slice(firstNewIndex),
    repairs,
  };
  runSpan.setAttributes({
    'mh.run.status': status,
    'mh.guard': result.guard,
    'mh.turns': turns,
    'mh.cost_usd': costUsd,
  });
  if (stop?.status === 'error') runSpan.recordError(stop.error);
  runSpan.end();
  yield { type: 'run-end', result };
  return result;
}

const STOPPED = Symbol('stopped');

/**
 * Whether a summed cost reaches a budget. Per-turn costs are binary fractions, so ten turns of
 * $0.10 sum to $0.9999999999999999: a strict `>=` would let one more turn through.
 */
function reachesBudget(costUsd: number, limitUsd: number): boolean {
  return costUsd >= limitUsd * (1 - 1e-9);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new HarnessError(String(error));
}

function executeTools(
  executor: ToolExecutor | undefined,
  calls: readonly ToolUseBlock[],
  signal: AbortSignal,
  tracer: Tracer,
  turnSpan: Span,
  events: AsyncQueue<AgentEvent>,
): Promise<void> {
  if (!executor) {
    for (const call of calls) {
      const outcome: ToolOutcome = {
        call,
        result: toolResult(call.id, `Unknown tool: ${call.name}. No tools are available.`, true),
        status: 'unknown-tool',
        attempts: 0,
        durationMs: 0,
      };
      events.push({ type: 'tool-execution-start', call });
      events.push({ type: 'tool-execution-end', outcome });
    }
    events.close();
    return Promise.resolve();
  }
  const hooks = {
    around: async (
      call: ToolUseBlock,
      execute: () => Promise<ToolOutcome>,
    ): Promise<ToolOutcome> => {
      const span = tracer.startSpan(SPAN_NAMES.tool, {
        parent: turnSpan,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.id,
        },
      });
      events.push({ type: 'tool-execution-start', call });
      try {
        const outcome = await tracer.withSpan(span, execute);
        span.setAttributes({
          'mh.tool.status': outcome.status,
          'mh.tool.attempts': outcome.attempts,
        });
        if (outcome.status !== 'ok')
          span.recordError(new HarnessError(`${call.name}: ${outcome.status}`));
        return outcome;
      } catch (error) {
        span.recordError(error);
        throw error;
      } finally {
        span.end();
      }
    },
  };
  return (async () => {
    try {
      for await (const outcome of executor.execute(calls, { signal, hooks })) {
        events.push({ type: 'tool-execution-end', outcome });
      }
      events.close();
    } catch (error) {
      events.fail(error);
    }
  })();
}
