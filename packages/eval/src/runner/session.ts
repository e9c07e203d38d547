import { type AgentEvent, InMemoryTracer, type RunResult } from '@mh/core';
import { attribute } from '../attribution/attribute.js';
import type { SessionCheck } from '../attribution/types.js';
import { runCheck } from '../checks/check.js';
import { checkInputOf } from '../checks/input.js';
import { traceOf } from '../report/trace.js';
import type { CaseRun, SessionStatus } from '../report/types.js';
import type { EvalAgent, EvalAgentFactory } from './agent.js';
import { combine } from './combine.js';
import type { EvalCase } from './eval-case.js';

/** How long a session that ignores its abort signal is waited for after its timeout, ms. */
export const ABANDON_GRACE_MS = 2_000;

/** Longest answer kept in a report. */
const MAX_ANSWER_CHARS = 2_000;

/** What one session needs. */
export interface SessionTask {
  readonly evalCase: EvalCase;
  readonly caseIndex: number;
  readonly repeat: number;
  readonly factory: EvalAgentFactory;
  readonly timeoutMs: number | undefined;
}

/** What a session collected while it ran. */
interface Collected {
  readonly results: RunResult[];
  readonly events: AgentEvent[];
  factoryError?: unknown;
  error?: unknown;
  /** What the agent threw once the runner had aborted it (the timeout ended it, not this). */
  abortError?: unknown;
  finished: boolean;
}

function errorFields(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: typeof error, message: String(error) };
}

async function drive(
  task: SessionTask,
  tracer: InMemoryTracer,
  signal: AbortSignal,
  collected: Collected,
): Promise<void> {
  let agent: EvalAgent;
  try {
    agent = await task.factory(task.evalCase, {
      tracer,
      repeat: task.repeat,
      caseIndex: task.caseIndex,
      signal,
    });
    if (agent === null || typeof agent !== 'object' || typeof agent.stream !== 'function')
      throw new TypeError('the factory returned no agent (an object with stream())');
  } catch (error) {
    collected.factoryError = error;
    return;
  }
  try {
    for (const prompt of task.evalCase.prompts) {
      let result: RunResult | undefined;
      for await (const event of agent.stream(prompt, { signal })) {
        // Only what attribution reads is kept: deltas of long answers would add up.
        if (event.type === 'run-end') result = event.result;
        else if (event.type === 'compaction' || event.type === 'tool-execution-end')
          collected.events.push(event);
      }
      if (!result) throw new TypeError('the agent stream ended without a run-end event');
      if (!isRunResult(result))
        throw new TypeError('the agent ended a run with a malformed result');
      collected.results.push(result);
      if (result.status !== 'completed' || signal.aborted) break;
    }
  } catch (error) {
    // Only the runner's timeout aborts this signal; an agent that rejects on it (an AbortError
    // from fetch or a child process) timed out, it did not fail on its own.
    if (signal.aborted) collected.abortError = error;
    else collected.error = error;
  } finally {
    await Promise.resolve(agent.close?.()).catch(() => {});
    collected.finished = true;
  }
}

/** Whether `value` has the fields the runner, checks and attribution read. */
function isRunResult(value: unknown): value is RunResult {
  const result = value as Partial<RunResult> | null;
  return (
    result !== null &&
    typeof result === 'object' &&
    typeof result.status === 'string' &&
    typeof result.text === 'string' &&
    typeof result.turns === 'number' &&
    typeof result.costUsd === 'number' &&
    result.usage !== null &&
    typeof result.usage === 'object' &&
    typeof result.usage.inputTokens === 'number' &&
    typeof result.usage.outputTokens === 'number' &&
    Array.isArray(result.messages) &&
    Array.isArray(result.newMessages)
  );
}

function statusOf(collected: Collected, timedOut: boolean): SessionStatus {
  if (collected.factoryError !== undefined) return 'factory-error';
  if (collected.error !== undefined) return 'threw';
  if (timedOut) return 'timeout';
  return collected.results.find((result) => result.status !== 'completed')?.status ?? 'completed';
}

/**
 * Runs one session (every prompt of a case on one fresh agent), grades it, and attributes it
 * when it failed. Never throws: every failure becomes part of the returned record.
 */
export async function runSession(task: SessionTask): Promise<CaseRun> {
  const tracer = new InMemoryTracer();
  const controller = new AbortController();
  const collected: Collected = { results: [], events: [], finished: false };
  const started = performance.now();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  let release: () => void = () => {};
  const abandoned = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (task.timeoutMs !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`eval timeout after ${task.timeoutMs} ms`));
      // An agent that ignores the signal is left behind after a grace period. The timer stays
      // referenced: an agent stuck on a promise holds nothing that keeps Node running, and an
      // unreferenced timer let the process exit before the report was made.
      grace = setTimeout(release, ABANDON_GRACE_MS);
    }, task.timeoutMs);
  }
  await Promise.race([drive(task, tracer, controller.signal, collected), abandoned]);
  clearTimeout(timer);
  clearTimeout(grace);
  release();
  const durationMs = performance.now() - started;
  const results = collected.results.slice();
  const ran = collected.factoryError === undefined && collected.error === undefined;
  let check: SessionCheck = { status: 'skipped' };
  if (ran && results.length > 0) {
    try {
      const result = await runCheck(task.evalCase.check, checkInputOf(results));
      check = { status: result.passed ? 'passed' : 'failed', result };
    } catch (error) {
      check = { status: 'threw', error };
    }
  }
  const status = statusOf(collected, timedOut);
  const completed = status === 'completed' && results.length === task.evalCase.prompts.length;
  const passed = completed && check.status === 'passed';
  const spans = tracer.records();
  const failedRun = results.find((result) => result.status !== 'completed');
  const failure =
    collected.factoryError ??
    collected.error ??
    collected.abortError ??
    (failedRun?.status === 'error' ? failedRun.error : undefined);
  return {
    case: task.evalCase.name,
    repeat: task.repeat,
    tags: task.evalCase.tags,
    status,
    completed,
    passed,
    answer: (results.at(-1)?.text ?? '').slice(0, MAX_ANSWER_CHARS),
    ...(check.status === 'passed' || check.status === 'failed'
      ? {
          check: {
            passed: check.result.passed,
            reason: check.result.reason,
            failures: check.result.failures,
          },
        }
      : {}),
    ...(check.status === 'threw' ? { checkError: errorFields(check.error).message } : {}),
    ...(failure === undefined ? {} : { error: errorFields(failure) }),
    ...(failedRun?.guard === undefined ? {} : { guard: failedRun.guard }),
    durationMs,
    metrics: combine(results, spans),
    ...(passed
      ? {}
      : {
          attribution: attribute({
            results,
            events: collected.events,
            spans,
            error: collected.error,
            factoryError: collected.factoryError,
            timedOut,
            check,
            checkName: task.evalCase.check.name,
            facts: task.evalCase.facts,
            tags: task.evalCase.tags,
          }),
          trace: traceOf(results, spans),
        }),
  };
}
