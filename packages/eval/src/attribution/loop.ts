import type { Guard } from '@mh/core';
import type { ToolCallView } from './tool-call.js';
import { callKey } from './tool-call.js';
import type { SessionView } from './view.js';

/** Identical calls (same tool, same arguments) that count as "repeated until stuck". */
export const STUCK_REPEATS = 3;

/** Guards that stop a run at a configured limit (SPEC: "max_turns/budget"); not the repeat guard. */
export const LIMIT_GUARDS: readonly Guard[] = ['max-turns', 'max-tokens', 'max-cost', 'timeout'];

/** A model going round in circles until a limit guard stopped it. */
export interface ModelLoop {
  /** The guard that stopped it. */
  readonly guard: Guard;
  /** The call it repeated most. */
  readonly call: ToolCallView;
  /** How often it made that call. */
  readonly count: number;
  /** Calls of the stopped run that repeat an identical call that had already succeeded. */
  readonly redundant: number;
  /** Calls of the stopped run. */
  readonly calls: number;
}

/**
 * The model's loop behind a limit guard, or undefined: in the run the guard stopped, one call
 * was made `STUCK_REPEATS`+ times and at least half of the run's calls repeat an identical call
 * that had already succeeded (its result was in front of the model). A model that makes
 * progress until a tight limit stops it shows neither, and the limit is the harness's.
 */
export function modelLoop(view: SessionView): ModelLoop | undefined {
  const guard = view.guard;
  if (guard === undefined || !LIMIT_GUARDS.includes(guard)) return undefined;
  const runIndex = view.failedRun ? view.input.results.indexOf(view.failedRun) : -1;
  const calls = runIndex < 0 ? view.calls : view.calls.filter((call) => call.run === runIndex);
  const answered = new Set<string>();
  const counts = new Map<string, { call: ToolCallView; count: number }>();
  let redundant = 0;
  for (const call of calls) {
    const key = callKey(call);
    if (answered.has(key)) redundant++;
    if (call.status === 'ok') answered.add(key);
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { call, count: 1 });
  }
  const top = [...counts.values()].sort((a, b) => b.count - a.count)[0];
  if (!top || top.count < STUCK_REPEATS || redundant * 2 < calls.length) return undefined;
  return { guard, call: top.call, count: top.count, redundant, calls: calls.length };
}
