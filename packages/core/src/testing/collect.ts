import type { ToolCallEvent, ToolOutcome } from '../ports/tool-executor.js';

/**
 * Drains an async iterable into an array, in order: the events of a provider stream, an executor's
 * events, a run's events. A stream that throws rejects with its error.
 */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/**
 * Drains a tool executor's events and returns the outcomes of its `tool-end`s, in the order they
 * came: `collectOutcomes(executor.execute(calls, { signal }))`. A stream that throws rejects.
 */
export async function collectOutcomes(
  events: AsyncIterable<ToolCallEvent>,
): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for await (const event of events) if (event.type === 'tool-end') outcomes.push(event.outcome);
  return outcomes;
}

/** How a stream read by `collectSettled` ended: what it yielded, and its error if it threw. */
export interface Settled<T> {
  /** The items yielded before the end or the error, in order. */
  readonly items: T[];
  /** What the stream threw; absent when it ended normally. */
  readonly error?: unknown;
}

/**
 * Drains an async iterable to its end or its first error, and never rejects: a broken stream's
 * events before the break, and the break. Items go into `into` as they arrive, so a test can look
 * at them while the stream is still pending.
 */
export async function collectSettled<T>(
  stream: AsyncIterable<T>,
  into: T[] = [],
): Promise<Settled<T>> {
  try {
    for await (const item of stream) into.push(item);
    return { items: into };
  } catch (error) {
    return { items: into, error };
  }
}
