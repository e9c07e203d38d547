import { compactionStep, type RunCompaction } from '../compaction/step.js';
import { HarnessError } from '../errors.js';
import type { HistoryRepair } from '../messages/history-repair.js';
import {
  type IdSource,
  type Message,
  messageText,
  type ToolUseBlock,
  toolUsesOf,
} from '../messages/message.js';
import { addUsage, promptTokens } from '../messages/usage.js';
import { OutputDeltas } from '../output/deltas.js';
import type { ResolvedOutput } from '../output/typed-output.js';
import type { ModelRequest, ToolSpec } from '../ports/provider.js';
import { SPAN_NAMES, type Span, type Tracer } from '../ports/tracer.js';
import { isErrorObject, thrownText } from '../support/thrown-text.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/vocabulary.js';
import { firstTripped, type RunGuards, type Stop } from './guards.js';
import type { MessageEnd, ModelCallContext, ModelCallOutcome } from './model-call.js';
import type { LoopHooks, ResolvedLoopSettings } from './options.js';
import { requestSnapshot } from './request-snapshot.js';
import type { AgentEvent } from './run-result.js';
import type { RunSignal } from './run-signal.js';
import type { RunState } from './run-state.js';
import type { ToolBatchContext, ToolBatchOutcome } from './tool-batch.js';

/** What every turn of a run shares. */
export interface TurnContext {
  readonly settings: ResolvedLoopSettings;
  readonly hooks: LoopHooks | undefined;
  readonly guards: RunGuards;
  readonly run: RunSignal;
  readonly tracer: Tracer;
  readonly runSpan: Span;
  readonly runId: string;
  /** Ids of the messages the run adds (a durable run's are the same on a replay). */
  readonly newId: IdSource;
  readonly compaction: RunCompaction | undefined;
  /** The typed answer the run asks for, resolved (absent: free text). */
  readonly output: ResolvedOutput | undefined;
  /** The stop of an abort now (a cancel, or the run's timeout). */
  readonly abortStop: () => Stop;
}

/**
 * A turn is run by `runLoop` step by step: it yields the model call's and the tools' events
 * itself, since every layer of generator between them and the caller costs each streamed event a
 * round of promises. These are the steps.
 */

/** Opens the `mh.turn` span of the turn just counted (after its `turn-start` event). */
export function beginTurn(state: RunState, context: TurnContext): Span {
  return context.tracer.startSpan(SPAN_NAMES.turn, {
    parent: context.runSpan,
    attributes: { [A.turn]: state.turns },
  });
}

/**
 * Checks the history before the request (a broken one fails the run) and compacts it if due;
 * returns the tool specs of the request and the compaction's events.
 */
export async function prepareTurn(
  state: RunState,
  context: TurnContext,
  span: Span,
): Promise<{ readonly tools: readonly ToolSpec[]; readonly events: readonly AgentEvent[] }> {
  const violations = state.checker.check(state.history);
  if (violations.length > 0) {
    const details = violations.map((violation) => violation.detail).join('; ');
    throw new HarnessError(`History breaks the pairing invariant: ${details}`);
  }
  const specs = context.settings.tools?.specs() ?? [];
  const tools = context.output?.tool ? [...specs, context.output.tool] : specs;
  const events = context.compaction
    ? await compact(state, context, context.compaction, tools, span)
    : [];
  return { tools, events };
}

/** What the model call of a turn needs besides its request. */
export function modelCallContext(context: TurnContext, span: Span): ModelCallContext {
  return {
    provider: context.settings.provider,
    run: context.run,
    tracer: context.tracer,
    parent: span,
    pricing: context.settings.pricing,
    clock: context.settings.clock,
    output: context.output && new OutputDeltas(context.output),
  };
}

/**
 * Charges the model call and reads its message (reused call ids renamed; `keepAnswer` appends
 * it); undefined when the call did not complete (the run stops: its error, or the abort).
 */
export function takeCall(
  state: RunState,
  context: TurnContext,
  call: ModelCallOutcome,
  tools: readonly ToolSpec[],
): Answer | undefined {
  state.charge(call.discardedUsage, call.costUsd);
  if (call.end === undefined) {
    state.stop = stopWithout(state, context, call);
    return undefined;
  }
  return takeAnswer(state, context, call, call.end, tools);
}

/** What the tool calls of a turn need. */
export function toolBatchContext(
  state: RunState,
  context: TurnContext,
  span: Span,
): ToolBatchContext {
  return {
    executor: context.settings.tools,
    run: context.run,
    tracer: context.tracer,
    parent: span,
    repeats: state.repeats,
    maxRepeatedCalls: context.settings.limits.maxRepeatedCalls,
    hooks: context.hooks,
  };
}

/** Appends the tools' results; true when the run was aborted meanwhile (it stops). */
export function takeResults(
  state: RunState,
  context: TurnContext,
  batch: ToolBatchOutcome,
): boolean {
  if (state.stop?.status === 'interrupted') {
    state.holdBack(state.stop.held.assistant);
    return true;
  }
  if (batch.results.length > 0)
    state.append({ id: context.newId(), role: 'user', content: batch.results });
  if (!context.run.aborted) return false;
  state.stop = context.abortStop();
  return true;
}

/**
 * Whether the run ends after this committed turn: the model called no tool (it answered), a typed
 * answer was accepted or failed, the repeated-call guard tripped in its tools, or a guard that
 * follows a tool turn trips.
 */
export function endsRun(
  state: RunState,
  context: TurnContext,
  answer: Answer,
  batch: ToolBatchOutcome | undefined,
): boolean {
  // With typed output, a text answer sent back with a correction does not end the run.
  if (answer.calls.length === 0)
    return context.output === undefined || state.output !== undefined || state.stop !== undefined;
  if (state.output !== undefined || state.stop !== undefined) return true;
  state.stop = batch?.repeatTrip
    ? { status: 'guard', guard: 'max-repeated-calls', error: batch.repeatTrip }
    : firstTripped(context.guards.afterToolTurn, state);
  return state.stop !== undefined;
}

/** A turn that threw: the run ends with status `error`. */
export function failTurn(state: RunState, error: unknown): void {
  state.stop = {
    status: 'error',
    error: isErrorObject(error) ? error : new HarnessError(thrownText('The run', error)),
  };
}

/** Ends the turn's span, recording the run's failure on it. */
export function endTurn(state: RunState, span: Span): void {
  if (state.stop?.status === 'error') recordFailure(span, state.stop.error);
  span.end();
}

/** Runs the compactor before the model call and returns its events. */
async function compact(
  state: RunState,
  context: TurnContext,
  compaction: RunCompaction,
  tools: readonly ToolSpec[],
  span: Span,
): Promise<readonly AgentEvent[]> {
  const { settings, run, tracer } = context;
  const step = await compactionStep(
    compaction,
    state.history,
    {
      runId: context.runId,
      turn: state.turns,
      model: settings.model,
      system: settings.system,
      tools,
      signal: run.signal,
    },
    { tracer, parent: span },
  );
  if (step.events.length > 0) {
    state.charge(step.usage, step.costUsd);
    state.compacted(step.history, step.records);
    await context.hooks?.compacted?.(step.events, state.history);
  }
  return step.events;
}

/** The request of the turn: a snapshot of the history as it is now. */
export function modelRequest(
  state: RunState,
  context: TurnContext,
  tools: readonly ToolSpec[],
): ModelRequest {
  const { settings } = context;
  return requestSnapshot(
    {
      model: settings.model,
      system: settings.system,
      tools,
      maxOutputTokens: settings.maxOutputTokens,
      temperature: settings.temperature,
      stopSequences: settings.stopSequences,
      output: context.output?.format,
      toolChoice: context.output?.tool ? 'required' : undefined,
    },
    state.history,
  );
}

/** Why the run stops after a model call that did not complete: its error, or the abort. */
function stopWithout(state: RunState, context: TurnContext, call: ModelCallOutcome): Stop {
  if (call.error) return { status: 'error', error: call.error };
  // Keep what the model said before the cancel; its unanswered calls are settled at the end.
  if (call.partial.length > 0) {
    state.history.push({
      id: context.newId(),
      role: 'assistant',
      content: call.partial,
      meta: { partial: true },
    });
  }
  return context.abortStop();
}

/** The model's message as the turn takes it into the history. */
export interface Answer {
  readonly call: ModelCallOutcome;
  readonly end: MessageEnd;
  readonly assistant: Message;
  readonly calls: readonly ToolUseBlock[];
  /** Tool call ids the history had used already, renamed. */
  readonly renames: readonly HistoryRepair[];
  /** Where the turn's messages start in the history. */
  readonly turnStart: number;
  /** The meter's estimate of the request (with compaction on). */
  readonly estimatedTokens: number | undefined;
}

/** Reads the model's message (renaming reused call ids) and charges its usage. */
function takeAnswer(
  state: RunState,
  context: TurnContext,
  call: ModelCallOutcome,
  end: MessageEnd,
  tools: readonly ToolSpec[],
): Answer {
  const { settings } = context;
  // The meter's estimate of the request (incremental), kept with the committed turn. The history
  // still holds exactly what was sent: measured from it, the request's messages need no copy
  // (and a provider that changed its copy does not skew the meter).
  const estimatedTokens = context.compaction?.meter.observe(
    { model: settings.model, system: settings.system, tools, messages: state.history },
    end.usage,
  );
  state.charge(end.usage, 0);
  state.stopReason = end.stopReason;
  const renames = freshIds(state, end);
  const assistant = renames.message;
  // The message is appended by `keepAnswer`, after the renames are reported.
  const turnStart = state.history.length;
  return {
    call,
    end,
    assistant,
    calls: toolUsesOf(assistant),
    renames: renames.repairs,
    turnStart,
    estimatedTokens,
  };
}

/** Appends the model's message (an empty one is not: providers reject empty content). */
export function keepAnswer(state: RunState, answer: Answer): void {
  if (answer.assistant.content.length > 0) state.append(answer.assistant);
  state.lastText = messageText(answer.assistant);
}

/** Hands the turn's messages to the `turnCommitted` hook (a session commits them). */
export async function commitTurn(
  state: RunState,
  context: TurnContext,
  answer: Answer,
): Promise<void> {
  const { call, end } = answer;
  if (state.history.length <= answer.turnStart) return;
  await context.hooks?.turnCommitted?.({
    turn: state.turns,
    messages: state.history.slice(answer.turnStart),
    usage: addUsage(end.usage, call.discardedUsage),
    costUsd: call.costUsd,
    model: end.model ?? context.settings.model,
    context:
      answer.estimatedTokens === undefined
        ? undefined
        : { promptTokens: promptTokens(end.usage), estimatedTokens: answer.estimatedTokens },
  });
}

/** The model's message with any tool call id the history already used renamed, and the repairs. */
function freshIds(
  state: RunState,
  end: MessageEnd,
): { readonly message: Message; readonly repairs: readonly HistoryRepair[] } {
  const fresh = state.checker.withFreshToolUseIds(end.message);
  const repairs: HistoryRepair[] = fresh.renamed.map(([from, to]) => ({
    kind: 'renamed-tool-use-id',
    messageId: end.message.id,
    toolUseId: to,
    detail: `renamed reused tool call id ${from} to ${to}`,
  }));
  state.repairs.push(...repairs);
  return { message: fresh.message, repairs };
}
