import { ConfigError } from '../errors.js';

/**
 * Throws `ConfigError` unless `value` is a plain object whose keys are all in `known`, so a
 * mistyped option (`{ limit: … }` for `{ limits: … }`) is reported instead of silently ignored.
 * `field` names the object (`options`, `permissions`, …); '' for a top-level options object.
 */
export function assertOptions(value: unknown, known: readonly string[], field: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(field || 'options', 'expected an object');
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new ConfigError(
        field ? `${field}.${key}` : key,
        `unknown option (known: ${known.join(', ')})`,
      );
    }
  }
}

/** Throws `ConfigError` unless `value` is absent or an object with the named methods. */
export function assertImplements(
  value: unknown,
  methods: readonly string[],
  field: string,
  what: string,
): void {
  if (value === undefined) return;
  const ok =
    typeof value === 'object' &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
  if (!ok)
    throw new ConfigError(
      field,
      `expected ${what} (with ${methods.map((m) => `${m}()`).join(', ')})`,
    );
}

/**
 * Throws `ConfigError` when an injected tracer, clock or pricing table lacks its methods. Shared
 * by the loop and the Agent, which checks at construction.
 */
export function assertCollaborators(options: {
  readonly tracer?: unknown;
  readonly clock?: unknown;
  readonly pricing?: unknown;
}): void {
  assertImplements(options.tracer, ['startSpan', 'withSpan'], 'tracer', 'a Tracer');
  assertImplements(options.clock, ['now', 'sleep'], 'clock', 'a Clock');
  assertImplements(options.pricing, ['cost', 'lookup'], 'pricing', 'a PricingTable');
}

/**
 * A value as an error message shows it: a string quoted and named, so `'3'` given for a number
 * reads `"3" (a string)`, not `3`.
 */
export function shownValue(value: unknown): string {
  return typeof value === 'string' ? `${JSON.stringify(value)} (a string)` : String(value);
}
