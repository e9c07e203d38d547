import { GuardTrippedError } from '../errors.js';
import { toolCallEvents } from '../executor/tool-call-events.js';
import { type ToolResultBlock, type ToolUseBlock, toolResult } from '../messages/message.js';
import { messageProblem } from '../messages/shape.js';
import type { AskedQuestion, Permission } from '../ports/tool.js';
import type { ToolExecutor, ToolOutcome } from '../ports/tool-executor.js';
import type { Span, Tracer } from '../ports/tracer.js';
import { thrownKind, thrownText } from '../support/thrown-text.js';
import type { RepeatedCallCounter } from './limits.js';
import type { LoopHooks } from './options.js';
import type { AgentEvent } from './run-result.js';
import { ABORTED, type RunSignal } from './run-signal.js';
import { ToolSpans } from './tool-spans.js';

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

/** A call of the batch that stopped on a question (`ToolRunContext.interrupt`). */
export interface AskedCall {
  readonly call: ToolUseBlock;
  readonly asked: AskedQuestion;
  readonly permission?: Permission;
}

/** The results of one turn's calls, and whether the repeated-call guard tripped. */
export interface ToolBatchOutcome {
  /**
   * Results in the order of the calls; all of them unless the run was aborted, or a call stopped
   * on a question (then the calls that asked, and those left waiting with them, have none).
   */
  readonly results: readonly ToolResultBlock[];
  /** The calls that stopped on a question, in the order of the calls; absent when none did. */
  readonly questions?: readonly AskedCall[];
  /** Set when a call repeated more than `maxRepeatedCalls` times (that call did not run). */
  readonly repeatTrip?: GuardTrippedError;
}

/**
 * Runs one assistant turn's tool calls through the executor, yielding `tool-execution-start` and
 * `tool-execution-end` events as they happen. The executor is pulled, not drained: it is asked for
 * its next event only after the consumer took the previous one, so a slow consumer slows the
 * tools too and can cancel before the next call starts. Calls over the repeated-call limit are not
 * run. A call left unanswered (without an abort), or answered with a malformed result, gets an
 * error result, so the history stays paired whatever the executor does; an executor that throws is
 * a harness failure and is rethrown.
 */
export async function* runToolBatch(
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
): AsyncGenerator<AgentEvent, ToolBatchOutcome, void> {
  const results = new Map<string, ToolResultBlock>();
  const asked = new Map<string, AskedCall>();
  const { toRun, repeatTrip } = screenRepeats(calls, context, results);
  if (toRun.length > 0) {
    if (context.executor) {
      yield* pullEvents(context.executor, toRun, context, { results, asked });
    } else {
      for (const call of toRun) {
        const outcome = unknownToolOutcome(call);
        yield { type: 'tool-execution-start', call };
        results.set(call.id, outcome.result);
        yield { type: 'tool-execution-end', outcome };
      }
    }
  }
  // Calls left unstarted by a question wait with it (the executor starts only reads after it).
  if (!context.run.aborted && asked.size === 0) {
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
  const questions = calls.flatMap((call) => asked.get(call.id) ?? []);
  return { results: ordered, repeatTrip, ...(questions.length > 0 ? { questions } : {}) };
}

/** Where a batch's calls end: their results, and the questions some stopped on. */
interface BatchAnswers {
  readonly results: Map<string, ToolResultBlock>;
  readonly asked: Map<string, AskedCall>;
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
 * Pulls the executor's events one at a time, each only after the consumer took the previous
 * event: on a call's `tool-start` it opens the call's span, reports the start, then journals the
 * call (`LoopHooks.toolStart`) before it pulls again, so the journal entry is durable before the
 * tool runs; on its `tool-end` it journals the result, ends the span and reports the end.
 */
async function* pullEvents(
  executor: ToolExecutor,
  calls: readonly ToolUseBlock[],
  context: ToolBatchContext,
  answers: BatchAnswers,
): AsyncGenerator<AgentEvent, void, void> {
  const spans = new ToolSpans(context.tracer, context.parent);
  const iterator = executor
    .execute(calls, { signal: context.run.signal, scope: spans.scope })
    [Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const step = await context.run.race(iterator.next());
      if (step === ABORTED) return;
      if (step.done) {
        finished = true;
        return;
      }
      for (const event of toolCallEvents(step.value, executor)) {
        const call = event.type === 'tool-start' ? event.call : event.outcome.call;
        // A tool-end without its start is started here, so every end follows its start.
        if (event.type === 'tool-start' || !spans.has(call.id)) {
          if (!(yield* startCall(call, context, spans))) return;
        }
        if (event.type === 'tool-end' && !(yield* endCall(event.outcome, context, spans, answers)))
          return;
      }
    }
  } finally {
    spans.endUnfinished(finished && !context.run.aborted ? 'error' : 'cancelled');
    // An abandoned executor must stop: it yields nothing more after the signal, and return() ends it.
    iterator.return?.()?.catch(() => {});
  }
}

/** Opens the call's span, reports its start, journals it; false when the batch must stop. */
async function* startCall(
  call: ToolUseBlock,
  context: ToolBatchContext,
  spans: ToolSpans,
): AsyncGenerator<AgentEvent, boolean, void> {
  spans.open(call);
  yield { type: 'tool-execution-start', call };
  // The consumer may have cancelled while holding this event: then nothing more may start.
  if (context.run.aborted) return false;
  try {
    const journaled = context.hooks?.toolStart?.(call);
    return !journaled || (await context.run.race(journaled)) !== ABORTED;
  } catch (error) {
    spans.fail(call, error);
    throw error;
  }
}

/**
 * Journals the call's result (or the question it stopped on: `LoopHooks.toolQuestion`), ends its
 * span, reports its end; false when the batch must stop.
 */
async function* endCall(
  answered: ToolOutcome,
  context: ToolBatchContext,
  spans: ToolSpans,
  { results, asked }: BatchAnswers,
): AsyncGenerator<AgentEvent, boolean, void> {
  const question = answered.status === 'interrupted' ? answered.question : undefined;
  if (question !== undefined) {
    try {
      const journaled = context.hooks?.toolQuestion?.(answered.call, question);
      if (journaled && (await context.run.race(journaled)) === ABORTED) return false;
    } catch (error) {
      spans.fail(answered.call, error);
      throw error;
    }
    spans.end(answered, answered.result);
    const { call, permission } = answered;
    asked.set(call.id, { call, asked: question, ...(permission ? { permission } : {}) });
    yield { type: 'tool-execution-end', outcome: answered };
    return !context.run.aborted;
  }
  const result = checkedResult(answered);
  try {
    const journaled = context.hooks?.toolEnd?.(answered.call, result);
    if (journaled && (await context.run.race(journaled)) === ABORTED) return false;
  } catch (error) {
    spans.fail(answered.call, error);
    throw error;
  }
  spans.end(answered, result);
  const outcome =
    result === answered.result ? answered : { ...answered, result, status: 'error' as const };
  results.set(outcome.call.id, result);
  yield { type: 'tool-execution-end', outcome };
  // The consumer may have cancelled while holding this event: then nothing more may start.
  return !context.run.aborted;
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
