import {
  CancelledError,
  GuardTrippedError,
  HarnessError,
  PermissionDeniedError,
  ProviderError,
  ToolInputError,
  ToolTimeoutError,
} from '../errors.js';
import type { Span } from '../ports/tracer.js';
import { SPAN_ATTRIBUTES } from './vocabulary.js';

/**
 * A low-cardinality class for a failure, as `error.type` wants it: a `ProviderError`'s kind
 * (`rate-limit`, `timeout`, …), `guard`, `cancelled`, `timeout`, `invalid-arguments`, `denied`,
 * else the error's class name; `_OTHER` for a thrown non-error. Never the message.
 */
export function errorKind(error: unknown): string {
  if (ProviderError.isInstance(error)) return error.kind;
  if (GuardTrippedError.isInstance(error)) return 'guard';
  if (CancelledError.isInstance(error)) return 'cancelled';
  if (ToolTimeoutError.isInstance(error)) return 'timeout';
  if (ToolInputError.isInstance(error)) return 'invalid-arguments';
  if (PermissionDeniedError.isInstance(error)) return 'denied';
  try {
    if (HarnessError.isInstance(error) || error instanceof Error) return error.name || 'Error';
  } catch {
    // A thrown Proxy or a throwing `name` getter: classified as a non-error, never rethrown.
  }
  return '_OTHER';
}

/**
 * Marks `span` failed: records the error (status `error` plus an `exception` event) and sets
 * `error.type` and `mh.error.kind` to `kind` (default: `errorKind(error)`).
 */
export function recordFailure(span: Span, error: unknown, kind: string = errorKind(error)): void {
  span.setAttributes({ [SPAN_ATTRIBUTES.errorType]: kind, [SPAN_ATTRIBUTES.errorKind]: kind });
  span.recordError(error);
}
