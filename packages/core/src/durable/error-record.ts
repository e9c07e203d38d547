import { HarnessError, ProviderError, type ProviderErrorKind } from '../errors.js';
import { errorBrand } from '../support/brand-check.js';
import { thrownText } from '../support/thrown-text.js';

/**
 * A failure as a durable step records it: plain JSON, so an engine can store it and a replay can
 * throw the same error again. The cause is left out (a vendor error carries request headers).
 */
export interface ErrorRecord {
  /** The class name (`ProviderError`, `SessionConflictError`, `Error`, …). */
  readonly name: string;
  readonly message: string;
  /** The mini-harness brands it carried (`HarnessError`, `SessionConflictError`, …). */
  readonly brands: readonly string[];
  /** Its own data fields (`kind`, `status`, `sessionId`, …): strings, numbers, booleans, null. */
  readonly fields: Readonly<Record<string, string | number | boolean | null>>;
}

/** Brands worth keeping: every error class of `@mh/core` and of the packages over it. */
const BRAND_PREFIX = 'mh.error.';

/** Records `error` (anything thrown) as plain JSON. */
export function recordError(error: unknown): ErrorRecord {
  if (typeof error !== 'object' || error === null) {
    return { name: 'Error', message: thrownText('A step', error), brands: [], fields: {} };
  }
  const brands: string[] = [];
  for (const symbol of Object.getOwnPropertySymbols(error)) {
    const key = Symbol.keyFor(symbol);
    if (key?.startsWith(BRAND_PREFIX) && (error as Record<symbol, unknown>)[symbol] === true)
      brands.push(key.slice(BRAND_PREFIX.length));
  }
  const fields: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause') continue;
    if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    )
      fields[key] = value;
  }
  const { name, message } = error as { name?: unknown; message?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : thrownText('A step', error),
    brands,
    fields,
  };
}

/**
 * The recorded failure as an error again: a `ProviderError` as itself (kind, status, retry
 * fields); any other branded error as an error carrying the same brands, name and fields, so
 * `X.isInstance` (never `instanceof`) recognises it; anything else as an `Error` under its name.
 */
export function reviveError(record: ErrorRecord): Error {
  const { fields } = record;
  if (record.brands.includes('ProviderError')) {
    return new ProviderError(record.message, {
      kind: String(fields.kind ?? 'server') as ProviderErrorKind,
      status: typeof fields.status === 'number' ? fields.status : undefined,
      retryable: typeof fields.retryable === 'boolean' ? fields.retryable : undefined,
      retryAfterMs: typeof fields.retryAfterMs === 'number' ? fields.retryAfterMs : undefined,
      provider: typeof fields.provider === 'string' ? fields.provider : undefined,
    });
  }
  const error = record.brands.includes('HarnessError')
    ? new HarnessError(record.message)
    : new Error(record.message);
  Object.defineProperty(error, 'name', { value: record.name, configurable: true, writable: true });
  for (const brand of record.brands) {
    Object.defineProperty(error, errorBrand(brand), { value: true });
  }
  Object.assign(error, fields);
  return error;
}
