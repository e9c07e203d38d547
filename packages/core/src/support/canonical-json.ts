/**
 * Serialises a JSON value with object keys sorted at every depth, so two argument objects that
 * differ only in key order give the same string. Non-JSON values (undefined, functions) are
 * dropped as `JSON.stringify` drops them.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // No prototype: on a plain object, assigning a `__proto__` key (valid in parsed JSON) would set
  // the prototype instead of adding the key, and the key would vanish from the output.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}
