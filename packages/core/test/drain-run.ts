import type { LoopOptions, ResolvedLoopOptions } from '../src/loop/options.js';
import { runLoop } from '../src/loop/run-loop.js';
import type { AgentEvent, RunResult } from '../src/loop/run-result.js';

/** What a drained run produced. */
export interface DrainedRun {
  /** Every event, in order (the last is `run-end`). */
  readonly events: AgentEvent[];
  /** The generator's return value. */
  readonly result: RunResult;
}

/**
 * Runs the loop to its end, calling `onEvent` for each event before asking for the next one (so a
 * handler that aborts or waits acts exactly between two events).
 */
export async function drainRun(
  options: LoopOptions | ResolvedLoopOptions,
  onEvent?: (event: AgentEvent) => void | Promise<void>,
): Promise<DrainedRun> {
  const events: AgentEvent[] = [];
  const iterator = runLoop(options);
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
    await onEvent?.(next.value);
  }
}

/** The events of one type, narrowed. */
export function eventsOfType<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}
