/**
 * Drains an async iterable into an array, in order: the events of a provider stream, an executor's
 * outcomes, a run's events. A stream that throws rejects with its error.
 */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}
