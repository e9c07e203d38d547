import { GuardTrippedError, HarnessError } from '../errors.js';
import { type ToolResultBlock, type ToolUseBlock, toolResult } from '../messages/message.js';
import { messageProblem } from '../messages/shape.js';
import type { ToolCallHooks, ToolExecutor, ToolOutcome } from '../ports/tool.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import { AsyncQueue } from '../support/async-queue.js';
import { thrownKind, thrownText } from '../support/thrown-text.js';
import { toolCallDetails } from '../tracing/content-capture.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A, GEN_AI_OPERATIONS, SPAN_EVENTS } from '../tracing/vocabulary.js';
import type { RepeatedCallCounter } from './limits.js';
import type { LoopHooks } from './options.js';
import type { AgentEvent } from './run-result.js';
import { ABORTED, type RunSignal } from './run-signal.js';

/** Everything one turn's tool calls need. */
export interface ToolBatchContext {
  readonly executor: ToolExecutor | undefined;
  readonly run: RunSignal;
  readonly tracer: Tracer;
  readonly parent: Span;
  readonly repeats: RepeatedCallCounter;
  readonly maxRepeatedCalls: number | undefined;
  /** Journaling of each call's start and end. */
  readonly hooks?: LoopHooks;
}

/** The results of one turn's calls, and whether the repeated-call guard tripped. */
export interface ToolBatchOutcome {
  /** Results in the order of the calls; all of them unless the run was aborted. */
  readonly results: readonly ToolResultBlock[];
  /** Set when a call repeated more than `maxRepeatedCalls` times (that call did not run). */
  readonly repeatTrip?: GuardTrippedError;
}

type Pending<T> = Promise<{ readonly kind: T; readonly value: unknown }>;

/**
 * Runs one assistant turn's tool calls through the executor, yielding `tool-execution-start` and
 * `tool-execution-end` events as they happen. The executor is pulled, not drained: it is asked for
 * its next outcome only after the consumer took the previous event, so a slow consumer slows the
 * tools too and can cancel before the next write starts. Calls over the repeated-call limit are not
 * run. A call left unanswered (without an abort), or answered with a malformed result, gets an
 * error result, so the history stays paired whatever the executor does; an executor that throws is
 * a harness failure and is rethrown.
 */
export async function* runToolBatch(
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
): AsyncGenerator<AgentEvent, ToolBatchOutcome, void> {
  const results = new Map<string, ToolResultBlock>();
  const { toRun, repeatTrip } = screenRepeats(calls, context, results);
  if (toRun.length > 0) {
    if (context.executor) {
      yield* pullOutcomes(context.executor, toRun, context, results);
    } else {
      for (const call of toRun) {
        const outcome = unknownToolOutcome(call);
        yield { type: 'tool-execution-start', call };
        results.set(call.id, outcome.result);
        yield { type: 'tool-execution-end', outcome };
      }
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

/** Answers calls over the repeated-call limit (and every call after the first such) without running them. */
function screenRepeats(
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
  results: Map<string, ToolResultBlock>,
): { toRun: ToolUseBlock[]; repeatTrip: GuardTrippedError | undefined } {
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
  return { toRun, repeatTrip };
}

/**
 * Iterates the executor one outcome at a time while the hooks report call starts through a queue;
 * both pending reads are kept across iterations so no notice is lost to a race.
 */
async function* pullOutcomes(
  executor: ToolExecutor,
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
  results: Map<string, ToolResultBlock>,
): AsyncGenerator<AgentEvent, void, void> {
  const starts = new AsyncQueue<ToolUseBlock>();
  const hooks = tracingHooks(context, (call) => starts.push(call));
  const iterator = executor
    .execute(calls, { signal: context.run.signal, hooks })
    [Symbol.asyncIterator]();
  const nextStart = (): Pending<'start'> =>
    starts.next().then((value) => ({ kind: 'start', value }));
  const nextOutcome = (): Pending<'outcome'> =>
    iterator.next().then((value) => ({ kind: 'outcome', value }));
  let pendingStart = nextStart();
  let pendingOutcome = nextOutcome();
  try {
    for (;;) {
      const next = await context.run.race(Promise.race([pendingStart, pendingOutcome]));
      if (next === ABORTED) return;
      if (next.kind === 'start') {
        pendingStart = nextStart();
        yield {
          type: 'tool-execution-start',
          call: (next.value as IteratorResult<ToolUseBlock>).value,
        };
        continue;
      }
      const step = next.value as IteratorResult<ToolOutcome>;
      if (step.done) break;
      // Starts reported before this outcome are delivered first.
      for (
        let start = await drainedStart(pendingStart);
        start;
        start = await drainedStart(pendingStart)
      ) {
        pendingStart = nextStart();
        yield { type: 'tool-execution-start', call: start };
      }
      const result = checkedResult(step.value);
      const outcome =
        result === step.value.result
          ? step.value
          : { ...step.value, result, status: 'error' as const };
      results.set(outcome.call.id, result);
      yield { type: 'tool-execution-end', outcome };
      // The consumer may have cancelled while holding this event: then nothing more may start.
      if (context.run.aborted) return;
      pendingOutcome = nextOutcome();
    }
  } finally {
    starts.close();
    // An abandoned executor must stop: it yields nothing more after the signal, and return() ends it.
    iterator.return?.()?.catch(() => {});
  }
}

/** The start notice already waiting in `pending`, if one is (never waits). */
async function drainedStart(pending: Pending<'start'>): Promise<ToolUseBlock | undefined> {
  const ready = await Promise.race([pending, Promise.resolve(undefined)]);
  if (!ready) return undefined;
  const step = ready.value as IteratorResult<ToolUseBlock>;
  return step.done ? undefined : step.value;
}

/** Hooks that open an `mh.tool` span around each call and report its start. */
function tracingHooks(
  context: ToolBatchContext,
  onStart: (call: ToolUseBlock) => void,
): ToolCallHooks {
  return {
    around: async (call, execute) => {
      const span = context.tracer.startSpan(SPAN_NAMES.tool, {
        parent: context.parent,
        attributes: {
          [A.operationName]: GEN_AI_OPERATIONS.tool,
          [A.toolName]: call.name,
          [A.toolCallId]: call.id,
          [A.toolType]: 'function',
        },
      });
      onStart(call);
      try {
        await context.hooks?.toolStart?.(call);
        const outcome = await context.tracer.withSpan(span, execute);
        const result = checkedResult(outcome);
        await context.hooks?.toolEnd?.(call, result);
        span.setAttributes({ [A.toolStatus]: outcome.status, [A.toolAttempts]: outcome.attempts });
        if (context.tracer.captureContent === true)
          span.addEvent(SPAN_EVENTS.toolCallDetails, toolCallDetails(call, result));
        if (outcome.status !== 'ok')
          recordFailure(span, new HarnessError(`${call.name}: ${outcome.status}`), outcome.status);
        return outcome;
      } catch (error) {
        recordFailure(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  };
}

/**
 * The outcome's result if it is well-formed and answers its call, else an error result saying so.
 * Never throws: an executor's result that cannot even be read (a throwing getter) is malformed too.
 */
function checkedResult(outcome: ToolOutcome): ToolResultBlock {
  const { call, result } = outcome;
  let problem: string | undefined;
  try {
    const answers: unknown = result?.toolUseId;
    problem =
      answers !== call.id
        ? `it answers call ${typeof answers === 'string' ? answers : thrownKind(answers)}, not ${call.id}`
        : messageProblem({ id: 'result', role: 'user', content: [result] }, 'result');
  } catch (error) {
    problem = `it cannot be read: ${thrownText('Reading it', error)}`;
  }
  if (problem === undefined) return result;
  return toolResult(
    call.id,
    `The tool returned a malformed result (${problem}); it was discarded.`,
    true,
  );
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
