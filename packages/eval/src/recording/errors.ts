import {
  CancelledError,
  HarnessError,
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
} from '@mh/core';
import type { RecordedError } from '../cassette/format.js';

/**
 * What a cassette keeps of a model call's failure: class name, message and the typed fields of a
 * `ProviderError`. The cause is left out on purpose: vendor SDK errors carry request headers.
 */
export function recordError(error: unknown): RecordedError {
  if (ProviderError.isInstance(error)) {
    return {
      name: 'ProviderError',
      message: error.message,
      kind: error.kind,
      status: error.status,
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
      provider: error.provider,
    };
  }
  if (CancelledError.isInstance(error)) return { name: 'CancelledError', message: error.message };
  if (HarnessError.isInstance(error))
    return { name: error.name, message: error.message, harness: true };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function providerKind(kind: unknown): ProviderErrorKind {
  return (PROVIDER_ERROR_KINDS as readonly unknown[]).includes(kind)
    ? (kind as ProviderErrorKind)
    : 'server';
}

const numberOrUndefined = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * Rebuilds a recorded failure as the same typed error: a `ProviderError` with its kind, status,
 * retryable flag and retry-after; a `CancelledError`; any other harness error as a `HarnessError`
 * and anything else as an `Error`, both under the recorded class name.
 */
export function replayError(recorded: RecordedError): Error {
  if (recorded.name === 'ProviderError') {
    return new ProviderError(recorded.message, {
      kind: providerKind(recorded.kind),
      status: numberOrUndefined(recorded.status),
      retryable: typeof recorded.retryable === 'boolean' ? recorded.retryable : undefined,
      retryAfterMs: numberOrUndefined(recorded.retryAfterMs),
      provider: typeof recorded.provider === 'string' ? recorded.provider : undefined,
    });
  }
  if (recorded.name === 'CancelledError') return new CancelledError(recorded.message);
  const error = recorded.harness ? new HarnessError(recorded.message) : new Error(recorded.message);
  Object.defineProperty(error, 'name', { value: recorded.name, configurable: true });
  return error;
}
