/**
 * The one error hierarchy of mini-harness. Subclasses follow the layers failure attribution uses
 * (infra, harness, tool, …). Every class carries readonly structured fields (switch on them, never on
 * message text) and a static `isInstance` that checks a `Symbol.for` brand, because two copies of
 * `@mh/core` in one install break `instanceof`.
 */

const brand = (name: string): symbol => Symbol.for(`mh.error.${name}`);

function hasBrand(value: unknown, symbol: symbol): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[symbol] === true
  );
}

const HARNESS_BRAND = brand('HarnessError');

/** Base class of every error mini-harness throws. */
export class HarnessError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, HARNESS_BRAND, { value: true });
  }

  /** True for any mini-harness error, from any copy of `@mh/core`. */
  static isInstance(value: unknown): value is HarnessError {
    return hasBrand(value, HARNESS_BRAND);
  }
}

/** Invalid configuration or arguments given by the user (never by a model). */
export class ConfigError extends HarnessError {
  /** The dotted path of the offending field, e.g. `limits.maxTurns`. */
  readonly field: string;
  static readonly #brand = brand('ConfigError');

  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`${field}: ${problem}`, options);
    this.field = field;
    Object.defineProperty(this, ConfigError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is ConfigError {
    return hasBrand(value, ConfigError.#brand);
  }
}

/** The kinds of provider failure, each mapped from a vendor's status codes and error bodies. */
export const PROVIDER_ERROR_KINDS: readonly [
  'auth',
  'rate-limit',
  'quota',
  'overloaded',
  'server',
  'network',
  'timeout',
  'bad-request',
  'context-overflow',
] = [
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
  static readonly #brand = brand('ProviderError');

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
    Object.defineProperty(this, ProviderError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is ProviderError {
    return hasBrand(value, ProviderError.#brand);
  }
}

/** A tool's arguments failed validation. The model sees it as an `isError` result, not a throw. */
export class ToolInputError extends HarnessError {
  /** The tool that was called. */
  readonly toolName: string;
  /** One line per problem, e.g. `a: expected number, received string`. */
  readonly issues: readonly string[];
  static readonly #brand = brand('ToolInputError');

  constructor(toolName: string, issues: readonly string[], options?: { cause?: unknown }) {
    super(`Invalid arguments: ${issues.join('; ')}`, options);
    this.toolName = toolName;
    this.issues = issues;
    Object.defineProperty(this, ToolInputError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is ToolInputError {
    return hasBrand(value, ToolInputError.#brand);
  }
}

/** A tool ran past its `timeoutMs`. */
export class ToolTimeoutError extends HarnessError {
  /** The tool that timed out. */
  readonly toolName: string;
  /** The limit it exceeded, in milliseconds. */
  readonly timeoutMs: number;
  static readonly #brand = brand('ToolTimeoutError');

  constructor(toolName: string, timeoutMs: number) {
    super(`Tool ${toolName} timed out after ${timeoutMs} ms`);
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
    Object.defineProperty(this, ToolTimeoutError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is ToolTimeoutError {
    return hasBrand(value, ToolTimeoutError.#brand);
  }
}

/** The permission policy refused a tool call. */
export class PermissionDeniedError extends HarnessError {
  /** The tool that was refused. */
  readonly toolName: string;
  /** The permission it needs. */
  readonly permission: string;
  static readonly #brand = brand('PermissionDeniedError');

  constructor(toolName: string, permission: string, reason?: string) {
    super(
      `Permission denied: ${toolName} needs '${permission}' permission${reason ? ` (${reason})` : ''}`,
    );
    this.toolName = toolName;
    this.permission = permission;
    Object.defineProperty(this, PermissionDeniedError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is PermissionDeniedError {
    return hasBrand(value, PermissionDeniedError.#brand);
  }
}

/** The guards of the loop, each named after its limit. */
export const GUARDS: readonly [
  'max-turns',
  'max-tokens',
  'max-cost',
  'max-repeated-calls',
  'timeout',
] = ['max-turns', 'max-tokens', 'max-cost', 'max-repeated-calls', 'timeout'] as const;
/** A guard of the loop. */
export type Guard = (typeof GUARDS)[number];

/** A loop guard stopped the run. */
export class GuardTrippedError extends HarnessError {
  /** Which guard. */
  readonly guard: Guard;
  /** The configured limit. */
  readonly limit: number;
  /** The value that reached it. */
  readonly value: number;
  static readonly #brand = brand('GuardTrippedError');

  constructor(guard: Guard, limit: number, value: number, detail?: string) {
    super(
      `Guard ${guard} tripped: ${value} reached the limit ${limit}${detail ? ` (${detail})` : ''}`,
    );
    this.guard = guard;
    this.limit = limit;
    this.value = value;
    Object.defineProperty(this, GuardTrippedError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is GuardTrippedError {
    return hasBrand(value, GuardTrippedError.#brand);
  }
}

/** The run was cancelled through its AbortSignal. */
export class CancelledError extends HarnessError {
  static readonly #brand = brand('CancelledError');

  constructor(message = 'Cancelled', options?: { cause?: unknown }) {
    super(message, options);
    Object.defineProperty(this, CancelledError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is CancelledError {
    return hasBrand(value, CancelledError.#brand);
  }
}

/** Another writer moved a session's head since it was read (optimistic concurrency). */
export class SessionConflictError extends HarnessError {
  /** The session that conflicted. */
  readonly sessionId: string;
  /** The head the writer expected. */
  readonly expectedHead: string | null;
  /** The head found in the store. */
  readonly actualHead: string | null;
  static readonly #brand = brand('SessionConflictError');

  constructor(sessionId: string, expectedHead: string | null, actualHead: string | null) {
    super(
      `Session ${sessionId} moved: expected head ${expectedHead ?? '(none)'}, found ${actualHead ?? '(none)'}`,
    );
    this.sessionId = sessionId;
    this.expectedHead = expectedHead;
    this.actualHead = actualHead;
    Object.defineProperty(this, SessionConflictError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is SessionConflictError {
    return hasBrand(value, SessionConflictError.#brand);
  }
}

/** An MCP server broke the protocol (bad version, malformed message, crash). */
export class McpProtocolError extends HarnessError {
  /** The server's configured name. */
  readonly server: string;
  /** JSON-RPC error code when there was one. */
  readonly code: number | undefined;
  static readonly #brand = brand('McpProtocolError');

  constructor(server: string, message: string, fields?: { code?: number; cause?: unknown }) {
    super(`MCP server ${server}: ${message}`, { cause: fields?.cause });
    this.server = server;
    this.code = fields?.code;
    Object.defineProperty(this, McpProtocolError.#brand, { value: true });
  }

  static override isInstance(value: unknown): value is McpProtocolError {
    return hasBrand(value, McpProtocolError.#brand);
  }
}
