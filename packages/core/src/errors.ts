/**
 * The one error hierarchy of mini-harness. Subclasses follow the layers failure attribution uses
 * (infra, harness, tool, …). Every class carries readonly structured fields (switch on them, never on
 * message text) and a static `isInstance` that checks a `Symbol.for` brand, because two copies of
 * `@mh/core` in one install break `instanceof`.
 */

import type { AskedQuestion } from './ports/tool.js';
import { brandCheck, errorBrand } from './support/brand-check.js';

/** Base class of every error mini-harness throws. */
export class HarnessError extends Error {
  /** The brand's name: stable across copies of `@mh/core` and across minifiers. */
  static readonly brandName: string = 'HarnessError';
  /** True for any mini-harness error, from any copy of `@mh/core`. */
  static readonly isInstance: (value: unknown) => value is HarnessError =
    brandCheck('HarnessError');

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    // Brand the error with every class of its chain, so `HarnessError.isInstance` holds for all.
    for (let type: unknown = new.target; type !== Error; type = Object.getPrototypeOf(type)) {
      const name = (type as typeof HarnessError).brandName;
      Object.defineProperty(this, errorBrand(name), { value: true });
    }
  }
}

/** Invalid configuration or arguments given by the user (never by a model). */
export class ConfigError extends HarnessError {
  static override readonly brandName: string = 'ConfigError';
  /** True for a `ConfigError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ConfigError =
    brandCheck('ConfigError');
  /** The dotted path of the offending field, e.g. `limits.maxTurns`. */
  readonly field: string;

  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`${field}: ${problem}`, options);
    this.field = field;
  }
}

/** The kinds of provider failure, each mapped from a vendor's status codes and error bodies. */
export const PROVIDER_ERROR_KINDS = [
  'auth',
  'rate-limit',
  'quota',
  'overloaded',
  'server',
  'network',
  'timeout',
  'bad-request',
  'context-overflow',
] as const;
/** A kind of provider failure. */
export type ProviderErrorKind = (typeof PROVIDER_ERROR_KINDS)[number];

/** Retryable by default: HTTP 408, 409, 429 and >= 500, and the kinds that mean "try again later". */
function defaultRetryable(kind: ProviderErrorKind, status: number | undefined): boolean {
  if (
    kind === 'auth' ||
    kind === 'quota' ||
    kind === 'bad-request' ||
    kind === 'context-overflow'
  ) {
    return false;
  }
  if (status === undefined) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A model provider failed: HTTP error, error event inside a stream, network failure or stall. */
export class ProviderError extends HarnessError {
  static override readonly brandName: string = 'ProviderError';
  /** True for a `ProviderError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ProviderError =
    brandCheck('ProviderError');
  /** What went wrong, independent of vendor. */
  readonly kind: ProviderErrorKind;
  /** HTTP status when there was one. */
  readonly status: number | undefined;
  /** Whether trying the same request again may succeed. */
  readonly retryable: boolean;
  /** Minimum wait the server asked for before a retry, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** Provider name, e.g. `anthropic`. */
  readonly provider: string | undefined;

  constructor(
    message: string,
    fields: {
      kind: ProviderErrorKind;
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      provider?: string;
      cause?: unknown;
    },
  ) {
    super(message, { cause: fields.cause });
    this.kind = fields.kind;
    this.status = fields.status;
    this.retryable = fields.retryable ?? defaultRetryable(fields.kind, fields.status);
    this.retryAfterMs = fields.retryAfterMs;
    this.provider = fields.provider;
  }
}

/** A tool's arguments failed validation. The model sees it as an `isError` result, not a throw. */
export class ToolInputError extends HarnessError {
  static override readonly brandName: string = 'ToolInputError';
  /** True for a `ToolInputError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ToolInputError =
    brandCheck('ToolInputError');
  /** The tool that was called. */
  readonly toolName: string;
  /** One line per problem, e.g. `a: expected number, received string`. */
  readonly issues: readonly string[];

  constructor(toolName: string, issues: readonly string[], options?: { cause?: unknown }) {
    super(`Invalid arguments: ${issues.join('; ')}`, options);
    this.toolName = toolName;
    this.issues = issues;
  }
}

/** A tool ran past its `timeoutMs`. */
export class ToolTimeoutError extends HarnessError {
  static override readonly brandName: string = 'ToolTimeoutError';
  /** True for a `ToolTimeoutError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ToolTimeoutError =
    brandCheck('ToolTimeoutError');
  /** The tool that timed out. */
  readonly toolName: string;
  /** The limit it exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(toolName: string, timeoutMs: number) {
    super(`Tool ${toolName} timed out after ${timeoutMs} ms`);
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
  }
}

/** The permission policy refused a tool call. */
export class PermissionDeniedError extends HarnessError {
  static override readonly brandName: string = 'PermissionDeniedError';
  /** True for a `PermissionDeniedError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is PermissionDeniedError =
    brandCheck('PermissionDeniedError');
  /** The tool that was refused. */
  readonly toolName: string;
  /** The permission it needs. */
  readonly permission: string;

  constructor(toolName: string, permission: string, reason?: string) {
    super(
      `Permission denied: ${toolName} needs '${permission}' permission${reason ? ` (${reason})` : ''}`,
    );
    this.toolName = toolName;
    this.permission = permission;
  }
}

/** The guards of the loop, each named after its limit. */
export const GUARDS = [
  'max-turns',
  'max-tokens',
  'max-cost',
  'max-repeated-calls',
  'timeout',
] as const;
/** A guard of the loop. */
export type Guard = (typeof GUARDS)[number];

/** A guard's value in its unit, for people: `83 ms`, `1.5 s`, `1 turn`, `1040 tokens`, `$0.3`. */
function inUnit(guard: Guard, value: number): string {
  const count = (one: string): string => `${value} ${one}${value === 1 ? '' : 's'}`;
  switch (guard) {
    case 'timeout':
      return value < 1000 ? `${Math.round(value)} ms` : `${Number((value / 1000).toFixed(1))} s`;
    case 'max-cost':
      // Summed costs carry binary noise (0.30000000000000004).
      return `$${Number(value.toPrecision(6))}`;
    case 'max-turns':
      return count('turn');
    case 'max-tokens':
      return count('token');
    case 'max-repeated-calls':
      return count('call');
  }
}

/** A loop guard stopped the run. */
export class GuardTrippedError extends HarnessError {
  static override readonly brandName: string = 'GuardTrippedError';
  /** True for a `GuardTrippedError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is GuardTrippedError =
    brandCheck('GuardTrippedError');
  /** Which guard. */
  readonly guard: Guard;
  /** The configured limit. */
  readonly limit: number;
  /** The value that reached it. */
  readonly value: number;

  constructor(guard: Guard, limit: number, value: number, detail?: string) {
    super(
      `Guard ${guard} tripped: ${inUnit(guard, value)} reached the limit ${inUnit(guard, limit)}${detail ? ` (${detail})` : ''}`,
    );
    this.guard = guard;
    this.limit = limit;
    this.value = value;
  }
}

/** The run was cancelled through its AbortSignal. */
export class CancelledError extends HarnessError {
  static override readonly brandName: string = 'CancelledError';
  /** True for a `CancelledError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is CancelledError =
    brandCheck('CancelledError');

  constructor(message = 'Cancelled', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * What `ToolRunContext.interrupt` rejects with when its question has no answer yet: the call stops
 * here and waits for a person. Not a failure: the executor turns it into an `interrupted` outcome
 * (let it propagate out of the tool's `run`).
 */
export class ToolInterrupt extends HarnessError {
  static override readonly brandName: string = 'ToolInterrupt';
  /** True for a `ToolInterrupt` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ToolInterrupt =
    brandCheck('ToolInterrupt');
  /** The call that asks. */
  readonly callId: string;
  /** The question, with the answers the call already had. */
  readonly question: AskedQuestion;

  constructor(callId: string, question: AskedQuestion) {
    super(`Call ${callId} waits for an answer: ${question.question}`);
    this.callId = callId;
    this.question = question;
  }
}

/** An MCP server broke the protocol (bad version, malformed message, crash). */
export class McpProtocolError extends HarnessError {
  static override readonly brandName: string = 'McpProtocolError';
  /** True for a `McpProtocolError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is McpProtocolError =
    brandCheck('McpProtocolError');
  /** The server's configured name. */
  readonly server: string;
  /** JSON-RPC error code when there was one. */
  readonly code: number | undefined;

  constructor(server: string, message: string, fields?: { code?: number; cause?: unknown }) {
    super(`MCP server ${server}: ${message}`, { cause: fields?.cause });
    this.server = server;
    this.code = fields?.code;
  }
}

/**
 * A replayed run sent a request that differs from the recorded one (or one the recording does not
 * have). A harness finding: the prompt, tools, history or parameters changed since recording.
 */
export class ReplayDriftError extends HarnessError {
  static override readonly brandName: string = 'ReplayDriftError';
  /** True for a `ReplayDriftError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is ReplayDriftError =
    brandCheck('ReplayDriftError');
  /** The first field that differs, e.g. `system`, `messages[3].content[0].text`, `requests`. */
  readonly path: string;
  /** The recorded value at `path` (undefined when absent). */
  readonly recorded: unknown;
  /** The value sent now at `path` (undefined when absent). */
  readonly actual: unknown;
  /** 0-based ordinal of the request within its recording. */
  readonly requestIndex: number;

  constructor(
    message: string,
    fields: { path: string; recorded: unknown; actual: unknown; requestIndex: number },
  ) {
    super(message);
    this.path = fields.path;
    this.recorded = fields.recorded;
    this.actual = fields.actual;
    this.requestIndex = fields.requestIndex;
  }
}

/** Why a typed answer was not accepted (see `OutputInvalidError`). */
export const OUTPUT_FAILURE_REASONS = ['invalid', 'refusal', 'max-tokens'] as const;
/**
 * `invalid`: the answer did not parse or did not match the schema, after every retry;
 * `refusal`: the model refused to answer (not retried); `max-tokens`: the answer was cut off at
 * the output token limit (not retried: the same limit would cut it again).
 */
export type OutputFailureReason = (typeof OUTPUT_FAILURE_REASONS)[number];

/**
 * The model did not give a final answer of the requested shape (typed output): the run ends with
 * status `error` and this error, which keeps the last raw answer.
 */
export class OutputInvalidError extends HarnessError {
  static override readonly brandName: string = 'OutputInvalidError';
  /** True for an `OutputInvalidError` from any copy of `@mh/core`. */
  static override readonly isInstance: (value: unknown) => value is OutputInvalidError =
    brandCheck('OutputInvalidError');
  /** Why the answer was not accepted. */
  readonly reason: OutputFailureReason;
  /** The problems of the last answer, one line each (`population: expected number`). */
  readonly issues: readonly string[];
  /** The last raw answer: its text, or the arguments of the output tool as JSON. */
  readonly text: string;
  /** Answers the model gave for the output (1 + the retries used). */
  readonly attempts: number;

  constructor(fields: {
    reason: OutputFailureReason;
    issues: readonly string[];
    text: string;
    attempts: number;
  }) {
    const why =
      fields.reason === 'refusal'
        ? 'the model refused'
        : fields.reason === 'max-tokens'
          ? 'the answer was cut off at the output token limit'
          : `after ${fields.attempts} attempt(s) it still does not match: ${fields.issues.slice(0, 3).join('; ')}`;
    super(`The model gave no valid typed output: ${why}`);
    this.reason = fields.reason;
    this.issues = Object.freeze([...fields.issues]);
    this.text = fields.text;
    this.attempts = fields.attempts;
  }
}
