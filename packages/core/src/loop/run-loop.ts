import { setupCompaction } from '../compaction/step.js';
import { stepExecutor } from '../durable/step-executor.js';
import { stepProvider } from '../durable/step-provider.js';
import { ConfigError } from '../errors.js';
import { type IdSource, newMessageId } from '../messages/message.js';
import { takeSettledPrefix } from '../messages/settled-histories.js';
import { resolveOutput } from '../output/typed-output.js';
import type { Provider } from '../ports/provider.js';
import type { StepRunner } from '../ports/step-runner.js';
import type { ToolExecutor } from '../ports/tool-executor.js';
import { abortedStop, firstTripped, runGuards } from './guards.js';
import { DEFAULT_MAX_TURNS } from './limits.js';
import { streamModelCall } from './model-call.js';
import {
  checkLoopOptions,
  type LoopOptions,
  type ResolvedLoopOptions,
  type ResolvedLoopSettings,
} from './options.js';
import { judgeTextAnswer, runTurnTools } from './output-turn.js';
import type { AgentEvent, RunResult } from './run-result.js';
import { RunSignal } from './run-signal.js';
import { endRunSpan, startRunSpan } from './run-span.js';
import { RunState } from './run-state.js';
import type { ToolBatchOutcome } from './tool-batch.js';
import {
  beginTurn,
  commitTurn,
  endsRun,
  endTurn,
  failTurn,
  keepAnswer,
  modelCallContext,
  modelRequest,
  prepareTurn,
  type TurnContext,
  takeCall,
  takeResults,
} from './turn.js';

/**
 * The agent loop: turns until the model stops calling tools, a guard trips, the run is cancelled or
 * it fails. It yields every event as it happens and waits for the consumer between events
 * (backpressure: nothing buffers without bound), and returns the `RunResult` (also yielded as the
 * last event, `run-end`). The history it returns always satisfies the pairing invariant.
 * Configuration errors throw `ConfigError` before the first event; failures during the run end it
 * with status `error` instead of throwing.
 */
export async function* runLoop(
  options: LoopOptions | ResolvedLoopOptions,
): AsyncGenerator<AgentEvent, RunResult, void> {
  const { state, context, startedAt } = startRun(options);
  const { run, runSpan, settings } = context;
  let loopEnded = false;
  try {
    yield { type: 'run-start', runId: context.runId, model: settings.model };
    if (state.initialRepairs.length > 0)
      yield { type: 'history-repair', repairs: state.initialRepairs };
    while (state.stop === undefined) {
      state.stop = run.aborted
        ? context.abortStop()
        : firstTripped(context.guards.beforeTurn, state);
      if (state.stop) break;
      state.turns++;
      yield { type: 'turn-start', turn: state.turns };
      const span = beginTurn(state, context);
      try {
        const { tools, events } = await prepareTurn(state, context, span);
        for (const event of events) yield event;
        if (context.compaction && run.aborted) {
          state.stop = context.abortStop();
          break;
        }
        const request = modelRequest(state, context, tools);
        const call = yield* streamModelCall(request, modelCallContext(context, span));
        const answer = takeCall(state, context, call, tools);
        if (answer === undefined) break;
        if (answer.renames.length > 0) yield { type: 'history-repair', repairs: answer.renames };
        keepAnswer(state, answer);
        let batch: ToolBatchOutcome | undefined;
        if (answer.calls.length > 0) {
          await context.hooks?.beforeTools?.(answer.assistant);
          batch = yield* runTurnTools(state, context, answer, span);
          if (takeResults(state, context, batch)) break;
        } else if (context.output) judgeTextAnswer(state, context.output, answer, context.newId);
        await commitTurn(state, context, answer);
        yield {
          type: 'turn-end',
          turn: state.turns,
          usage: answer.end.usage,
          costUsd: call.costUsd,
        };
        if (endsRun(state, context, answer, batch)) break;
      } catch (error) {
        failTurn(state, error);
      } finally {
        endTurn(state, span);
      }
    }
    loopEnded = true;
  } finally {
    run.dispose();
    if (!loopEnded) {
      // The consumer stopped iterating early: no result will be read, but the history must settle.
      state.settle('cancelled');
      endRunSpan(runSpan, state, { status: 'cancelled' });
    }
  }
  const finalRepairs = state.settle(state.stop?.status ?? 'completed');
  if (finalRepairs.length > 0) {
    state.repairs.push(...finalRepairs);
    yield { type: 'history-repair', repairs: finalRepairs };
  }
  const result = state.result(context.runId, settings.clock.now() - startedAt);
  const settled = settleWithProvider(settings.provider, result);
  endRunSpan(runSpan, state, settled);
  yield { type: 'run-end', result: settled };
  return settled;
}

/** Checks the options and sets the run up: its state, its span and what its turns share. */
function startRun(options: LoopOptions | ResolvedLoopOptions): {
  readonly state: RunState;
  readonly context: TurnContext;
  readonly startedAt: number;
} {
  // A prefix an earlier run settled is not checked or repaired again (settled-histories.ts).
  const settledPrefix = Array.isArray(options?.history)
    ? takeSettledPrefix(options.history)
    : undefined;
  const checked = checkLoopOptions(options, settledPrefix?.length ?? 0);
  const { steps } = options;
  if (steps && checked.limits.timeoutMs !== undefined) {
    // A replay returns recorded steps at once: a wall-clock deadline would fall elsewhere on it.
    throw new ConfigError(
      'limits.timeoutMs',
      "a durable run (steps) takes no wall-clock timeout: a replay would time out at another point; use the engine's workflow timeout",
    );
  }
  // A durable run takes its model and tool calls as steps and its ids from the step runner.
  const settings = steps ? durableSettings(checked, steps) : checked;
  const newId: IdSource = steps ? (prefix = 'msg') => steps.newId(prefix) : newMessageId;
  const { model, provider, limits, clock, tracer, pricing } = settings;
  const runId = options.runId ?? newId('run');
  const startedAt = clock.now();
  const run = new RunSignal(options.signal, limits.timeoutMs, clock);
  const runSpan = startRunSpan(tracer, settings, options.parentSpan, runId);
  const compaction = settings.compaction
    ? setupCompaction(
        settings.compaction,
        { provider, model, pricing, clock, newId },
        settings.resolvedCompaction,
      )
    : undefined;
  const output =
    options.output === undefined
      ? undefined
      : resolveOutput(options.output, provider, toolNames(settings.tools));
  const state = new RunState(options.history, settledPrefix, options.onSettled, newId);
  const context: TurnContext = {
    settings,
    hooks: options.hooks,
    run,
    tracer,
    runSpan,
    runId,
    newId,
    compaction,
    output,
    guards: runGuards(limits, limits.maxTurns ?? DEFAULT_MAX_TURNS),
    abortStop: () =>
      abortedStop(run.reason, limits.timeoutMs, clock.now() - startedAt, options.signal?.reason),
  };
  return { state, context, startedAt };
}

/** The settings of a durable run: model calls and tool calls through its step runner. */
function durableSettings(settings: ResolvedLoopSettings, steps: StepRunner): ResolvedLoopSettings {
  return {
    ...settings,
    provider: stepProvider(settings.provider, steps),
    tools: settings.tools && stepExecutor(settings.tools, steps),
  };
}

function toolNames(tools: ToolExecutor | undefined): string[] {
  return tools?.specs().map((spec) => spec.name) ?? [];
}

/** The run's result as the provider settles it (`Provider.settle`), or as it is. */
function settleWithProvider(provider: Provider, result: RunResult): RunResult {
  if (typeof provider.settle !== 'function') return result;
  try {
    return provider.settle(result) ?? result;
  } catch {
    // A provider's bookkeeping must not lose the run's result.
    return result;
  }
}
