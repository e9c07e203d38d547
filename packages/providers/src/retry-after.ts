/** Header access shared by fetch `Headers`, the SDKs' header objects and plain records. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | undefined
  | null;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const value = record[name] ?? record[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

/**
 * The wait a server asked for, in milliseconds: `retry-after-ms` (float ms) first, then
 * `retry-after` as seconds or as an HTTP date (relative to `now`). Undefined when absent, negative
 * or unparseable.
 */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const value = Number.parseFloat(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = header(headers, 'retry-after');
  if (after === undefined) return undefined;
  const seconds = Number.parseFloat(after);
  if (/^\s*\d+(\.\d+)?\s*$/.test(after) && Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** `x-should-retry` as the server said it (`true`/`false`), or undefined. */
export function shouldRetryHeader(headers: HeaderSource): boolean | undefined {
  const value = header(headers, 'x-should-retry');
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}
