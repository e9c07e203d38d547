import type { CompactionRecord } from '../compaction/record.js';
import { compactionStep, setupCompaction } from '../compaction/step.js';
import { CancelledError, type Guard, GuardTrippedError, HarnessError } from '../errors.js';
import { type HistoryRepair, repairAfterSettled, repairHistory } from '../messages/history.js';
import { HistoryChecker } from '../messages/history-checker.js';
import { type Message, messageText, newMessageId, toolUsesOf } from '../messages/message.js';
import { rememberSettled, takeSettledPrefix } from '../messages/settled-histories.js';
import { addUsage, promptTokens, totalTokens, type Usage, ZERO_USAGE } from '../messages/usage.js';
import { systemClock } from '../ports/clock.js';
import type { Provider, StopReason } from '../ports/provider.js';
import { noopTracer, SPAN_NAMES } from '../ports/tracer.js';
import { defaultPricing } from '../pricing/prices.js';
import { markAppendOnly } from '../support/append-only.js';
import { isErrorObject, thrownText } from '../support/thrown-text.js';
import { recordFailure } from '../tracing/span-failure.js';
import { SPAN_ATTRIBUTES as A, GEN_AI_OPERATIONS } from '../tracing/vocabulary.js';
import { DEFAULT_MAX_TURNS, RepeatedCallCounter } from './limits.js';
import { streamModelCall, usageAttributes } from './model-call.js';
import { checkLoopOptions, type LoopOptions } from './options.js';
import { requestSnapshot } from './request-snapshot.js';
import type { AgentEvent, RunResult, RunStatus } from './run-result.js';
import { RunSignal } from './run-signal.js';
import { runToolBatch } from './tool-batch.js';

/** Why a run stopped before the model finished. */
type Stop =
  | { readonly status: 'cancelled'; readonly error: CancelledError }
  | { readonly status: 'guard'; readonly guard: Guard; readonly error: GuardTrippedError }
  | { readonly status: 'error'; readonly error: Error };

/**
 * Whether a summed cost reaches a budget. Per-turn costs are binary fractions, so ten turns of
 * $0.10 sum to $0.9999999999999999: a strict `>=` would let one more turn through.
 */
function reachesBudget(costUsd: number, limitUsd: number): boolean {
  return costUsd >= limitUsd * (1 - 1e-9);
}

function guardStop(guard: Guard, limit: number, value: number): Stop {
  return { status: 'guard', guard, error: new GuardTrippedError(guard, limit, value) };
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
  // A prefix an earlier run settled is not checked or repaired again (settled-histories.ts).
  const settledPrefix = Array.isArray(options?.history)
    ? takeSettledPrefix(options.history)
    : undefined;
  const limits = checkLoopOptions(options, settledPrefix?.length ?? 0);
  const clock = options.clock ?? systemClock;
  const tracer = options.tracer ?? noopTracer;
  const pricing = options.pricing ?? defaultPricing;
  const maxTurns = limits.maxTurns ?? DEFAULT_MAX_TURNS;
  const runId = options.runId ?? newMessageId('run');
  const startedAt = clock.now();
  const run = new RunSignal(options.signal, limits.timeoutMs, clock);
  const runSpan = tracer.startSpan(SPAN_NAMES.run, {
    parent: options.parentSpan,
    attributes: {
      [A.operationName]: GEN_AI_OPERATIONS.run,
      [A.runId]: runId,
      [A.requestModel]: options.model,
      [A.providerName]: options.provider.name,
    },
  });

  const compaction = options.compaction
    ? setupCompaction(options.compaction, {
        provider: options.provider,
        model: options.model,
        pricing,
        clock,
      })
    : undefined;
  const startedFrom = settledPrefix?.length ?? 0;
  const initial = settledPrefix
    ? repairAfterSettled(options.history, settledPrefix.length, settledPrefix.useIds, {
        reason: 'interrupted',
      })
    : repairHistory(options.history, { reason: 'interrupted' });
  // Only appended to: a rewrite (compaction, repair) assigns a new array, so a request taken as a
  // snapshot of it (`requestSnapshot`) keeps what it was sent without copying the history per turn,
  // and the meter reads only the messages added since it last measured it.
  let history: Message[] = markAppendOnly(initial.history);
  const repairs: HistoryRepair[] = [...initial.repairs];
  const compactions: CompactionRecord[] = [];
  // Ids of the messages this run added (its prompt first), to find them again after a compaction
  // (a trimmed message keeps its id; a summary counts only when it folded one of them).
  const added = new Set<string>(history.slice(-1).map((message) => message.id));
  // The history is appended to in place: its length now is where this run's messages begin.
  const givenLength = history.length;
  const checker = new HistoryChecker(
    settledPrefix ? { history: initial.history, prefix: settledPrefix } : undefined,
  );
  const repeats = new RepeatedCallCounter();
  let usage: Usage = ZERO_USAGE;
  let costUsd = 0;
  let turns = 0;
  let lastText = '';
  let stopReason: StopReason | undefined;
  let stop: Stop | undefined;
  let loopEnded = false;

  const abortStop = (): Stop =>
    run.reason === 'timeout'
      ? guardStop('timeout', limits.timeoutMs ?? 0, clock.now() - startedAt)
      : {
          status: 'cancelled',
          error: new CancelledError('Run cancelled', { cause: options.signal?.reason }),
        };

  /** Answers calls left without a result; returns the repairs made. */
  const settle = (status: RunStatus): HistoryRepair[] => {
    // Everything in `history` was shape-checked on its way in: the input by repairHistory, model
    // messages by streamModelCall, tool results by runToolBatch.
    const reason = status === 'error' ? 'interrupted' : 'cancelled';
    // What the checker passed before the last request is valid and ends with no call left open.
    const checked = checker.checkedLength(history);
    // The checker's ids are those of its checked messages: after a rewrite (a compaction since
    // the last check) they are another history's, and everything is repaired afresh.
    const useIds = checked > 0 ? checker.useIds : new Set<string>();
    const repaired = repairAfterSettled(history, checked, useIds, { reason });
    if (repaired.repairs.length > 0) history = markAppendOnly(repaired.history);
    for (let index = checked; index < history.length; index++) {
      for (const block of (history[index] as Message).content)
        if (block.type === 'tool_use') useIds.add(block.id);
    }
    rememberSettled(history, useIds, startedFrom);
    options.onSettled?.(history, status);
    return repaired.repairs;
  };

  try {
    yield { type: 'run-start', runId, model: options.model };
    if (initial.repairs.length > 0) yield { type: 'history-repair', repairs: initial.repairs };

    while (stop === undefined) {
      if (run.aborted) {
        stop = abortStop();
        break;
      }
      if (turns >= maxTurns) {
        stop = guardStop('max-turns', maxTurns, turns);
        break;
      }
      turns++;
      yield { type: 'turn-start', turn: turns };
      const turnSpan = tracer.startSpan(SPAN_NAMES.turn, {
        parent: runSpan,
        attributes: { [A.turn]: turns },
      });
      try {
        const violations = checker.check(history);
        if (violations.length > 0) {
          const details = violations.map((violation) => violation.detail).join('; ');
          throw new HarnessError(`History breaks the pairing invariant: ${details}`);
        }
        const tools = options.tools?.specs() ?? [];
        if (compaction) {
          const step = await compactionStep(
            compaction,
            history,
            {
              runId,
              turn: turns,
              model: options.model,
              system: options.system,
              tools,
              signal: run.signal,
            },
            { tracer, parent: turnSpan },
          );
          if (step.events.length > 0) {
            usage = addUsage(usage, step.usage);
            costUsd += step.costUsd;
            compactions.push(...step.records);
            if (step.history) {
              for (const record of step.records) {
                if (record.summaryMessageId && record.foldedMessageIds.some((id) => added.has(id)))
                  added.add(record.summaryMessageId);
              }
              history = markAppendOnly(step.history.slice());
            }
            await options.hooks?.compacted?.(step.events, history);
            for (const event of step.events) yield event;
          }
          if (run.aborted) {
            stop = abortStop();
            break;
          }
        }
        const request = requestSnapshot(
          {
            model: options.model,
            system: options.system,
            tools,
            maxOutputTokens: options.maxOutputTokens,
            temperature: options.temperature,
            stopSequences: options.stopSequences,
          },
          history,
        );
        const call = yield* streamModelCall(request, {
          provider: options.provider,
          run,
          tracer,
          parent: turnSpan,
          pricing,
          clock,
        });
        usage = addUsage(usage, call.discardedUsage);
        costUsd += call.costUsd;
        if (call.end === undefined) {
          if (call.error) {
            stop = { status: 'error', error: call.error };
          } else {
            // Keep what the model said before the cancel; its unanswered calls are settled below.
            if (call.partial.length > 0) {
              history.push({
                id: newMessageId(),
                role: 'assistant',
                content: call.partial,
                meta: { partial: true },
              });
            }
            stop = abortStop();
          }
          break;
        }
        const end = call.end;
        // The meter's estimate of the request (incremental), kept with the committed turn.
        // The history still holds exactly what was sent: measured from it, the request's messages
        // need no copy (and a provider that changed its copy does not skew the meter).
        const estimatedTokens = compaction?.meter.observe(
          { model: options.model, system: options.system, tools, messages: history },
          end.usage,
        );
        usage = addUsage(usage, end.usage);
        stopReason = end.stopReason;
        const fresh = checker.withFreshToolUseIds(end.message);
        if (fresh.renamed.length > 0) {
          const renames: HistoryRepair[] = fresh.renamed.map(([from, to]) => ({
            kind: 'renamed-tool-use-id',
            messageId: end.message.id,
            toolUseId: to,
            detail: `renamed reused tool call id ${from} to ${to}`,
          }));
          repairs.push(...renames);
          yield { type: 'history-repair', repairs: renames };
        }
        const assistant = fresh.message;
        // An empty assistant message is not appended: providers reject empty content.
        if (assistant.content.length > 0) {
          history.push(assistant);
          added.add(assistant.id);
        }
        lastText = messageText(assistant);
        const calls = toolUsesOf(assistant);

        let repeatTrip: GuardTrippedError | undefined;
        const turnStart = history.length - (assistant.content.length > 0 ? 1 : 0);
        if (calls.length > 0) {
          await options.hooks?.beforeTools?.(assistant);
          const batch = yield* runToolBatch(calls, {
            executor: options.tools,
            run,
            tracer,
            parent: turnSpan,
            repeats,
            maxRepeatedCalls: limits.maxRepeatedCalls,
            hooks: options.hooks,
          });
          if (batch.results.length > 0) {
            const results: Message = { id: newMessageId(), role: 'user', content: batch.results };
            history.push(results);
            added.add(results.id);
          }
          if (run.aborted) {
            stop = abortStop();
            break;
          }
          repeatTrip = batch.repeatTrip;
        }
        if (history.length > turnStart) {
          await options.hooks?.turnCommitted?.({
            turn: turns,
            messages: history.slice(turnStart),
            usage: addUsage(end.usage, call.discardedUsage),
            costUsd: call.costUsd,
            model: end.model ?? options.model,
            context:
              estimatedTokens === undefined
                ? undefined
                : { promptTokens: promptTokens(end.usage), estimatedTokens },
          });
        }
        yield { type: 'turn-end', turn: turns, usage: end.usage, costUsd: call.costUsd };

        if (repeatTrip) {
          stop = { status: 'guard', guard: 'max-repeated-calls', error: repeatTrip };
        } else if (calls.length === 0) {
          break;
        } else if (limits.maxTokens !== undefined && totalTokens(usage) >= limits.maxTokens) {
          stop = guardStop('max-tokens', limits.maxTokens, totalTokens(usage));
        } else if (limits.maxCostUsd !== undefined && reachesBudget(costUsd, limits.maxCostUsd)) {
          stop = guardStop('max-cost', limits.maxCostUsd, costUsd);
        }
      } catch (error) {
        stop = {
          status: 'error',
          error: isErrorObject(error) ? error : new HarnessError(thrownText('The run', error)),
        };
      } finally {
        if (stop?.status === 'error') recordFailure(turnSpan, stop.error);
        turnSpan.end();
      }
    }
    loopEnded = true;
  } finally {
    run.dispose();
    if (!loopEnded) {
      // The consumer stopped iterating early: no result will be read, but the history must settle.
      settle('cancelled');
      runSpan.setAttributes({
        ...usageAttributes(usage),
        [A.runStatus]: 'cancelled',
        [A.turns]: turns,
        [A.costUsd]: costUsd,
      });
      runSpan.end();
    }
  }

  const status: RunStatus = stop?.status ?? 'completed';
  const finalRepairs = settle(status);
  if (finalRepairs.length > 0) {
    repairs.push(...finalRepairs);
    yield { type: 'history-repair', repairs: finalRepairs };
  }
  // Without a compaction the run's messages follow the history it was given (its prompt last).
  let firstAdded = -1;
  const searchFrom = compactions.length === 0 ? Math.max(0, givenLength - 1) : 0;
  for (let index = searchFrom; index < history.length && firstAdded === -1; index++) {
    if (added.has((history[index] as Message).id)) firstAdded = index;
  }
  const reported: RunResult = {
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
    newMessages: firstAdded === -1 ? [] : history.slice(firstAdded),
    repairs,
    compactions,
  };
  const result = settleWithProvider(options.provider, reported);
  runSpan.setAttributes({
    ...usageAttributes(usage),
    [A.runStatus]: result.status,
    [A.guard]: result.guard,
    [A.guardLimit]: stop?.status === 'guard' && result.guard ? stop.error.limit : undefined,
    [A.guardValue]: stop?.status === 'guard' && result.guard ? stop.error.value : undefined,
    [A.turns]: turns,
    [A.costUsd]: costUsd,
  });
  if (result.status === 'error' && result.error) recordFailure(runSpan, result.error);
  runSpan.end();
  yield { type: 'run-end', result };
  return result;
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
