/**
 * Finds a model's entry: by exact id, else by the longest known id the model id starts with
 * followed by `-`, so dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find
 * their family. A provider prefix such as `anthropic/` (OpenRouter style) is ignored.
 */
export function lookupModel<T>(entries: ReadonlyMap<string, T>, model: string): T | undefined {
  const id = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const exact = entries.get(id);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const known of entries.keys()) {
    if (id.startsWith(`${known}-`) && (best === undefined || known.length > best.length))
      best = known;
  }
  return best === undefined ? undefined : entries.get(best);
}
