import { ConfigError } from '../errors.js';

/**
 * The `field` of the `ConfigError` that `action` throws (or, for an async action, rejects with):
 * what an option check names. `undefined` when `action` succeeds; any other error is rethrown, so
 * a test that expected a field fails with the real error.
 */
export function fieldOf(action: () => Promise<unknown>): Promise<string | undefined>;
export function fieldOf(action: () => unknown): string | undefined;
export function fieldOf(action: () => unknown): string | undefined | Promise<string | undefined> {
  let result: unknown;
  try {
    result = action();
  } catch (error) {
    return fieldOfError(error);
  }
  if (result instanceof Promise) return result.then(() => undefined, fieldOfError);
  return undefined;
}

function fieldOfError(error: unknown): string {
  if (ConfigError.isInstance(error)) return error.field;
  throw error;
}
