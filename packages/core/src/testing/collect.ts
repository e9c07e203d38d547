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
