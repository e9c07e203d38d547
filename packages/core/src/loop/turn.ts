import { compactionStep, type RunCompaction } from '../compaction/step.js';
import { HarnessError } from '../errors.js';
import type { HistoryRepair } from '../messages/history.js';
import { type Message, messageText, newMessageId, toolUsesOf } from '../messages/message.js';
import { addUsage, promptTokens } from '../messages/usage.js';
import type { ToolSpec } from '../ports/provider.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import { isErrorObject, thrownText } from '../support/thrown-text.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/vocabulary.js';
import { firstTripped, type RunGuards, type Stop } from './guards.js';
import { type MessageEnd, type ModelCallOutcome, streamModelCall } from './model-call.js';
import type { LoopHooks, ResolvedLoopSettings } from './options.js';
import { requestSnapshot } from './request-snapshot.js';
import type { AgentEvent } from './run-result.js';
import type { RunSignal } from './run-signal.js';
import type { RunState } from './run-state.js';
import { runToolBatch } from './tool-batch.js';

/** What every turn of a run shares. */
export interface TurnContext {
  readonly settings: ResolvedLoopSettings;
  readonly hooks: LoopHooks | undefined;
  readonly guards: RunGuards;
  readonly run: RunSignal;
  readonly tracer: Tracer;
  readonly runSpan: Span;
  readonly runId: string;
  readonly compaction: RunCompaction | undefined;
  /** The stop of an abort now (a cancel, or the run's timeout). */
  readonly abortStop: () => Stop;
}

/** Whether the run goes on to another turn, or ends (with `state.stop` saying why, if early). */
export type TurnEnd = 'next' | 'end';

/**
 * One turn inside an `mh.turn` span: check the history, compact it if due, call the model, run
 * the tools it called and commit the turn. A failure ends the run with status `error`.
 */
export async function* runTurn(
  state: RunState,
  context: TurnContext,
): AsyncGenerator<AgentEvent, TurnEnd, void> {
  state.turns++;
  yield { type: 'turn-start', turn: state.turns };
  const span = context.tracer.startSpan(SPAN_NAMES.turn, {
    parent: context.runSpan,
    attributes: { [A.turn]: state.turns },
  });
  try {
    const violations = state.checker.check(state.history);
    if (violations.length > 0) {
      const details = violations.map((violation) => violation.detail).join('; ');
      throw new HarnessError(`History breaks the pairing invariant: ${details}`);
    }
    const tools = context.settings.tools?.specs() ?? [];
    if (context.compaction) yield* compact(state, context, context.compaction, tools, span);
    if (state.stop) return 'end';
    const call = yield* callModel(state, context, tools, span);
    if (call.end === undefined) {
      state.stop = stopWithout(state, context, call);
      return 'end';
    }
    return yield* answer(state, context, call, call.end, tools, span);
  } catch (error) {
    state.stop = {
      status: 'error',
      error: isErrorObject(error) ? error : new HarnessError(thrownText('The run', error)),
    };
    return 'end';
  } finally {
    if (state.stop?.status === 'error') recordFailure(span, state.stop.error);
    span.end();
  }
}

/** Runs the compactor before the model call; an abort during it stops the run. */
async function* compact(
  state: RunState,
  context: TurnContext,
  compaction: RunCompaction,
  tools: readonly ToolSpec[],
  span: Span,
): AsyncGenerator<AgentEvent, void, void> {
  const { settings: options, run, tracer } = context;
  const step = await compactionStep(
    compaction,
    state.history,
    {
      runId: context.runId,
      turn: state.turns,
      model: options.model,
      system: options.system,
      tools,
      signal: run.signal,
    },
    { tracer, parent: span },
  );
  if (step.events.length > 0) {
    state.charge(step.usage, step.costUsd);
    state.compacted(step.history, step.records);
    await context.hooks?.compacted?.(step.events, state.history);
    for (const event of step.events) yield event;
  }
  if (run.aborted) state.stop = context.abortStop();
}

/** Streams the model call of the turn and charges what it cost. */
async function* callModel(
  state: RunState,
  context: TurnContext,
  tools: readonly ToolSpec[],
  span: Span,
): AsyncGenerator<AgentEvent, ModelCallOutcome, void> {
  const { settings: options } = context;
  const request = requestSnapshot(
    {
      model: options.model,
      system: options.system,
      tools,
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      stopSequences: options.stopSequences,
    },
    state.history,
  );
  const call = yield* streamModelCall(request, {
    provider: options.provider,
    run: context.run,
    tracer: context.tracer,
    parent: span,
    pricing: options.pricing,
    clock: options.clock,
  });
  state.charge(call.discardedUsage, call.costUsd);
  return call;
}

/** Why the run stops after a model call that did not complete: its error, or the abort. */
function stopWithout(state: RunState, context: TurnContext, call: ModelCallOutcome): Stop {
  if (call.error) return { status: 'error', error: call.error };
  // Keep what the model said before the cancel; its unanswered calls are settled at the end.
  if (call.partial.length > 0) {
    state.history.push({
      id: newMessageId(),
      role: 'assistant',
      content: call.partial,
      meta: { partial: true },
    });
  }
  return context.abortStop();
}

/**
 * Takes the model's message into the history, runs the calls it made, commits the turn and
 * checks the guards that follow a tool turn.
 */
async function* answer(
  state: RunState,
  context: TurnContext,
  call: ModelCallOutcome,
  end: MessageEnd,
  tools: readonly ToolSpec[],
  span: Span,
): AsyncGenerator<AgentEvent, TurnEnd, void> {
  const { settings: options, run, hooks } = context;
  // The meter's estimate of the request (incremental), kept with the committed turn. The history
  // still holds exactly what was sent: measured from it, the request's messages need no copy
  // (and a provider that changed its copy does not skew the meter).
  const estimatedTokens = context.compaction?.meter.observe(
    { model: options.model, system: options.system, tools, messages: state.history },
    end.usage,
  );
  state.charge(end.usage, 0);
  state.stopReason = end.stopReason;
  const assistant = yield* freshIds(state, end);
  // An empty assistant message is not appended: providers reject empty content.
  const turnStart = state.history.length;
  if (assistant.content.length > 0) state.append(assistant);
  state.lastText = messageText(assistant);
  const calls = toolUsesOf(assistant);
  let stop: Stop | undefined;
  if (calls.length > 0) {
    await hooks?.beforeTools?.(assistant);
    const batch = yield* runToolBatch(calls, {
      executor: options.tools,
      run,
      tracer: context.tracer,
      parent: span,
      repeats: state.repeats,
      maxRepeatedCalls: options.limits.maxRepeatedCalls,
      hooks,
    });
    if (batch.results.length > 0)
      state.append({ id: newMessageId(), role: 'user', content: batch.results });
    if (run.aborted) {
      state.stop = context.abortStop();
      return 'end';
    }
    if (batch.repeatTrip)
      stop = { status: 'guard', guard: 'max-repeated-calls', error: batch.repeatTrip };
  }
  if (state.history.length > turnStart) {
    await hooks?.turnCommitted?.({
      turn: state.turns,
      messages: state.history.slice(turnStart),
      usage: addUsage(end.usage, call.discardedUsage),
      costUsd: call.costUsd,
      model: end.model ?? options.model,
      context:
        estimatedTokens === undefined
          ? undefined
          : { promptTokens: promptTokens(end.usage), estimatedTokens },
    });
  }
  yield { type: 'turn-end', turn: state.turns, usage: end.usage, costUsd: call.costUsd };
  if (calls.length === 0) return 'end';
  state.stop = stop ?? firstTripped(context.guards.afterToolTurn, state);
  return state.stop ? 'end' : 'next';
}

/** The model's message with any tool call id the history already used renamed, reported. */
async function* freshIds(
  state: RunState,
  end: MessageEnd,
): AsyncGenerator<AgentEvent, Message, void> {
  const fresh = state.checker.withFreshToolUseIds(end.message);
  if (fresh.renamed.length > 0) {
    const renames: HistoryRepair[] = fresh.renamed.map(([from, to]) => ({
      kind: 'renamed-tool-use-id',
      messageId: end.message.id,
      toolUseId: to,
      detail: `renamed reused tool call id ${from} to ${to}`,
    }));
    state.repairs.push(...renames);
    yield { type: 'history-repair', repairs: renames };
  }
  return fresh.message;
}
