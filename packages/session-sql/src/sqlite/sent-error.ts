import {
  ConfigError,
  HarnessError,
  SessionConflictError,
  SessionStoreUnavailableError,
} from '@mh/core';
import { type FileProblem, SessionFileError, SessionStoreBusyError } from '../errors.js';

// An error thrown in the SQLite thread reaches the caller as the same typed error: the structured
// clone of a message keeps an Error's name, message and stack but not its class, brands or fields
// (`field`, `sessionId`, `problem`, …), which callers test with `isInstance` and read.

/** An error as it crosses from the SQLite thread: plain data. */
export interface SentError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** Own enumerable fields (`field`, `sessionId`, `code`, …), plain data only. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly cause: SentError | undefined;
}

const plain = (value: unknown): boolean =>
  value === null || ['string', 'number', 'boolean', 'undefined', 'bigint'].includes(typeof value);

/** The plain-data form of `error` (and of its causes, three deep). */
export function sendError(error: unknown, depth = 0): SentError {
  if (!(error instanceof Error)) {
    return {
      name: 'Error',
      message: String(error),
      stack: undefined,
      fields: {},
      cause: undefined,
    };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) if (plain(value)) fields[key] = value;
  const cause =
    depth < 3 && error.cause !== undefined ? sendError(error.cause, depth + 1) : undefined;
  return { name: error.name, message: error.message, stack: error.stack, fields, cause };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value));
const headOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Builds the error of `sent`'s class with its fields; unknown classes become a plain Error. */
function rebuild(sent: SentError, cause: Error | undefined): Error {
  const f = sent.fields;
  const options = cause === undefined ? undefined : { cause };
  switch (sent.name) {
    case 'SessionFileError':
      return new SessionFileError(text(f.path), f.problem as FileProblem, '', options);
    case 'SessionStoreBusyError':
      return new SessionStoreBusyError(Number(f.timeoutMs), options);
    case 'SessionStoreUnavailableError':
      return new SessionStoreUnavailableError(
        f.failure as SessionStoreUnavailableError['failure'],
        sent.message,
        options,
      );
    case 'SessionConflictError':
      return new SessionConflictError(
        text(f.sessionId),
        headOrNull(f.expectedHead),
        headOrNull(f.actualHead),
      );
    case 'ConfigError':
      return new ConfigError(text(f.field), '', options);
    case 'HarnessError':
      return new HarnessError(sent.message, options);
    default: {
      const error = new Error(sent.message, options);
      error.name = sent.name;
      return error;
    }
  }
}

/** The error `sent` stands for, of its class, with its message, fields and causes. */
export function receiveError(sent: SentError): Error {
  const cause = sent.cause === undefined ? undefined : receiveError(sent.cause);
  const error = rebuild(sent, cause);
  Object.defineProperty(error, 'message', {
    value: sent.message,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  for (const [key, value] of Object.entries(sent.fields)) {
    if (Object.hasOwn(error, key) && (error as unknown as Record<string, unknown>)[key] === value) {
      continue;
    }
    Object.defineProperty(error, key, {
      value,
      writable: true,
      configurable: true,
      enumerable: true,
    });
  }
  // The thread's stack says where the store failed; the caller's await is all this side knows.
  if (sent.stack !== undefined) {
    Object.defineProperty(error, 'stack', {
      value: `${sent.stack}\n    at (the store's SQLite thread)`,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
  return error;
}
