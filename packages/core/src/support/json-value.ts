/**
 * Why `value` is not a JSON value (what `JSON.parse` could return), naming the first offending
 * path below `field`; undefined when it is one. Rejects undefined, functions, symbols, bigints,
 * non-finite numbers, cycles and objects that are not plain (a Date, a Map, a class instance).
 */
export function jsonValueProblem(value: unknown, field: string): string | undefined {
  return problemAt(value, field, new Set());
}

function problemAt(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${path}: expected a finite number`;
  if (typeof value !== 'object') return `${path}: expected a JSON value, got ${typeof value}`;
  if (seen.has(value)) return `${path}: a cycle is not JSON`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const problem = problemAt(item, `${path}[${index}]`, seen);
        if (problem) return problem;
      }
      return undefined;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null)
      return `${path}: expected a plain object, array or primitive`;
    for (const [key, item] of Object.entries(value)) {
      const problem = problemAt(item, `${path}.${key}`, seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}
