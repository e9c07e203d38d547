import { CancelledError, type Guard, GuardTrippedError } from '../errors.js';
import { totalTokens, type Usage } from '../messages/usage.js';
import type { Limits } from './limits.js';
import type { HeldTurn, Interrupt } from './run-result.js';

/** Why a run stopped before the model finished. */
export type Stop =
  | { readonly status: 'cancelled'; readonly error: CancelledError }
  | { readonly status: 'guard'; readonly guard: Guard; readonly error: GuardTrippedError }
  | { readonly status: 'error'; readonly error: Error }
  | {
      readonly status: 'interrupted';
      readonly error?: undefined;
      readonly interrupts: readonly Interrupt[];
      readonly held: HeldTurn;
    };

/** What the guards read of a run so far. */
export interface RunProgress {
  readonly turns: number;
  readonly usage: Usage;
  readonly costUsd: number;
}

/** A guard: a named check of the run so far, a `Stop` when it trips. */
export type RunGuard = (progress: RunProgress) => Stop | undefined;

/** The stop a tripped guard makes. */
export function guardStop(guard: Guard, limit: number, value: number): Stop {
  return { status: 'guard', guard, error: new GuardTrippedError(guard, limit, value) };
}

/** Trips when the run has used its `maxTurns` turns (checked before a turn starts). */
export function turnLimitReached(maxTurns: number): RunGuard {
  return ({ turns }) => (turns >= maxTurns ? guardStop('max-turns', maxTurns, turns) : undefined);
}

/** Trips when the run's tokens reach `maxTokens` (checked after a turn with tool calls). */
export function tokenBudgetReached(maxTokens: number): RunGuard {
  return ({ usage }) => {
    const used = totalTokens(usage);
    return used >= maxTokens ? guardStop('max-tokens', maxTokens, used) : undefined;
  };
}

/**
 * Trips when the run's cost reaches `maxCostUsd` (checked after a turn with tool calls). Per-turn
 * costs are binary fractions, so ten turns of $0.10 sum to $0.9999999999999999: a strict `>=`
 * would let one more turn through.
 */
export function costBudgetReached(maxCostUsd: number): RunGuard {
  return ({ costUsd }) =>
    costUsd >= maxCostUsd * (1 - 1e-9) ? guardStop('max-cost', maxCostUsd, costUsd) : undefined;
}

/** The guards of a run, in the order they are checked, before and after each turn. */
export interface RunGuards {
  readonly beforeTurn: readonly RunGuard[];
  readonly afterToolTurn: readonly RunGuard[];
}

/** The guards `limits` ask for (`maxTurns` is the limit or its default). */
export function runGuards(limits: Limits, maxTurns: number): RunGuards {
  const afterToolTurn: RunGuard[] = [];
  if (limits.maxTokens !== undefined) afterToolTurn.push(tokenBudgetReached(limits.maxTokens));
  if (limits.maxCostUsd !== undefined) afterToolTurn.push(costBudgetReached(limits.maxCostUsd));
  return { beforeTurn: [turnLimitReached(maxTurns)], afterToolTurn };
}

/** The first of `guards` that trips, if one does. */
export function firstTripped(guards: readonly RunGuard[], progress: RunProgress): Stop | undefined {
  for (const guard of guards) {
    const stop = guard(progress);
    if (stop) return stop;
  }
  return undefined;
}

/** The stop of an aborted run: the run's timeout guard, or a cancel by the caller. */
export function abortedStop(
  reason: 'cancelled' | 'timeout' | undefined,
  timeoutMs: number | undefined,
  elapsedMs: number,
  cause: unknown,
): Stop {
  return reason === 'timeout'
    ? guardStop('timeout', timeoutMs ?? 0, elapsedMs)
    : { status: 'cancelled', error: new CancelledError('Run cancelled', { cause }) };
}
