import { ToolTimeoutError } from '@mh/core';

/** Node network error codes that mean "the same call may work if tried again". */
export const TRANSIENT_ERROR_CODES: readonly string[] = Object.freeze([
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'EPIPE',
]);

/** How deep to follow `cause`: `fetch` wraps the socket error one level down. */
const MAX_CAUSE_DEPTH = 4;

/**
 * The default transient-error test of the executor's retries: an error with `transient === true`,
 * a `ToolTimeoutError`, or a Node network error (`TRANSIENT_ERROR_CODES`), found on the error or
 * along its `cause` chain. Never throws.
 */
export function isTransientError(error: unknown): boolean {
  let current = error;
  try {
    for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
      if (typeof current !== 'object' || current === null) return false;
      if ((current as { transient?: unknown }).transient === true) return true;
      if (ToolTimeoutError.isInstance(current)) return true;
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && TRANSIENT_ERROR_CODES.includes(code)) return true;
      current = (current as { cause?: unknown }).cause;
    }
  } catch {
    // A value whose fields cannot be read (a throwing getter, a Proxy) is not known to be transient.
  }
  return false;
}
