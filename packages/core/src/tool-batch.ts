import { AsyncQueue } from './async-queue.js';
import { GuardTrippedError, HarnessError } from './errors.js';
import type { RepeatedCallCounter } from './limits.js';
import { type ToolResultBlock, type ToolUseBlock, toolResult } from './messages.js';
import type { AgentEvent } from './run-result.js';
import { ABORTED, type RunSignal } from './run-signal.js';
import type { ToolCallHooks, ToolExecutor, ToolOutcome } from './tool.js';
import { SPAN_NAMES, type Span, type Tracer } from './tracer.js';

/** Everything one turn's tool calls need. */
export interface ToolBatchContext {
  readonly executor: ToolExecutor | undefined;
  readonly run: RunSignal;
  readonly tracer: Tracer;
  readonly parent: Span;
  readonly repeats: RepeatedCallCounter;
  readonly maxRepeatedCalls: number | undefined;
}

/** The results of one turn's calls, and whether the repeated-call guard tripped. */
export interface ToolBatchOutcome {
  /** Results in the order of the calls; all of them unless the run was aborted. */
  readonly results: readonly ToolResultBlock[];
  /** Set when a call repeated more than `maxRepeatedCalls` times (that call did not run). */
  readonly repeatTrip?: GuardTrippedError;
}

/**
 * Runs one assistant turn's tool calls through the executor, yielding `tool-execution-start` and
 * `tool-execution-end` events as they happen. Calls over the repeated-call limit are not run and
 * answered as such. A call the executor never answered (without an abort) gets an error result,
 * so the history stays paired whatever the executor does; an executor that throws is a harness
 * failure and is rethrown.
 */
export async function* runToolBatch(
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
): AsyncGenerator<AgentEvent, ToolBatchOutcome, void> {
  const results = new Map<string, ToolResultBlock>();
  const toRun: ToolUseBlock[] = [];
  let repeatTrip: GuardTrippedError | undefined;
  const limit = context.maxRepeatedCalls;
  for (const call of calls) {
    const count = context.repeats.count(call);
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
    void pump(toRun, context, events);
    for (;;) {
      const next = await context.run.race(events.next());
      if (next === ABORTED || next.done) break;
      const event = next.value;
      if (event.type === 'tool-execution-end')
        results.set(event.outcome.call.id, event.outcome.result);
      yield event;
    }
  }
  if (!context.run.aborted) {
    for (const call of calls) {
      if (!results.has(call.id)) {
        results.set(
          call.id,
          toolResult(call.id, 'The tool executor returned no result for this call.', true),
        );
      }
    }
  }
  const ordered = calls
    .map((call) => results.get(call.id))
    .filter((result) => result !== undefined);
  return { results: ordered, repeatTrip };
}

function unknownToolOutcome(call: ToolUseBlock): ToolOutcome {
  return {
    call,
    result: toolResult(call.id, `Unknown tool: ${call.name}. No tools are available.`, true),
    status: 'unknown-tool',
    attempts: 0,
    durationMs: 0,
  };
}

/** Feeds the executor's outcomes, and the hooks' start notices, into one queue. */
async function pump(
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
  events: AsyncQueue<AgentEvent>,
): Promise<void> {
  const executor = context.executor;
  if (!executor) {
    for (const call of calls) {
      events.push({ type: 'tool-execution-start', call });
      events.push({ type: 'tool-execution-end', outcome: unknownToolOutcome(call) });
    }
    events.close();
    return;
  }
  const hooks: ToolCallHooks = {
    around: async (call, execute) => {
      const span = context.tracer.startSpan(SPAN_NAMES.tool, {
        parent: context.parent,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.id,
        },
      });
      events.push({ type: 'tool-execution-start', call });
      try {
        const outcome = await context.tracer.withSpan(span, execute);
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
  try {
    for await (const outcome of executor.execute(calls, { signal: context.run.signal, hooks })) {
      events.push({ type: 'tool-execution-end', outcome });
    }
    events.close();
  } catch (error) {
    events.fail(error);
  }
}
