/** A snapshot suffix: a date (`-20250929`, `-2024-08-06`, `@20251101`) or `-latest`. */
const SNAPSHOT_SUFFIX = /^(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2})|-latest)$/;

/**
 * Finds a model's entry: by exact id, else by the known id that the model id extends with only a
 * snapshot suffix, so `claude-sonnet-4-5-20250929` and `gpt-4o-2024-08-06` find their family while
 * a different tier (`gpt-5-pro`, `o3-deep-research`) does not borrow a cheaper tier's entry. A
 * vendor prefix such as `anthropic/` (OpenRouter style) is ignored.
 */
export function lookupModel<T>(entries: ReadonlyMap<string, T>, model: string): T | undefined {
  const id = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const exact = entries.get(id);
  if (exact !== undefined) return exact;
  for (const [known, entry] of entries) {
    if (id.startsWith(known) && SNAPSHOT_SUFFIX.test(id.slice(known.length))) return entry;
  }
  return undefined;
}
