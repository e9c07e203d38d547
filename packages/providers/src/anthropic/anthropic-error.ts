import { CancelledError, HarnessError, ProviderError, type ProviderErrorKind } from '@mh/core';
import { type HeaderSource, retryAfterMs, shouldRetryHeader } from '../retry-after.js';

const PROVIDER = 'anthropic';

/** The fields of an SDK `APIError` this mapping reads (duck-typed: the client may be another copy). */
interface ApiErrorLike {
  /** The SDK class name, e.g. `APIConnectionError` (set by the SDK on every error). */
  readonly name?: string;
  /** `<status> <body message or raw body text>`. */
  readonly message?: string;
  /** HTTP status; undefined for connection errors and `event: error` inside a stream. */
  readonly status?: number;
  /** Response headers (those of the 200 response for a mid-stream error). */
  readonly headers?: HeaderSource;
  /** The whole JSON body (`{ type: 'error', error: { type, message } }`), or null when not JSON. */
  readonly error?: unknown;
  /** `error.type` of the body (SDK >= 0.81 only). */
  readonly type?: string | null;
  /** The underlying fetch or socket error, for connection errors. */
  readonly cause?: unknown;
}

const QUOTA =
  /credit[ _]balance|spend(ing)?[ _]limit|usage[ _]limits?|billing|quota|purchase credits/i;
const CONTEXT = /prompt is too long|context (window|length|limit)|too many (input )?tokens/i;
const NETWORK_CODES =
  /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|UND_ERR_\w+)$/;

const object = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** The vendor error object inside a body: `{ type, message, details }`. */
function vendorError(error: ApiErrorLike): { type?: string; message?: string; code?: string } {
  const inner = object(object(error.error).error);
  const details = object(inner.details);
  return {
    type: (typeof inner.type === 'string' ? inner.type : undefined) ?? error.type ?? undefined,
    message: typeof inner.message === 'string' ? inner.message : undefined,
    code: typeof details.error_code === 'string' ? details.error_code : undefined,
  };
}

/** A short single-line excerpt of a body, for error messages. */
export function snippet(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The kind of an HTTP or stream error, from its status, `error.type` and message/code text. */
function kindOf(
  status: number | undefined,
  type: string | undefined,
  text: string,
): ProviderErrorKind {
  if (type === 'billing_error' || status === 402) return 'quota';
  if ((status === 429 || status === 400 || status === 403) && QUOTA.test(text)) return 'quota';
  if (status === 401 || status === 403) return 'auth';
  if (type === 'authentication_error' || type === 'permission_error') return 'auth';
  if (status === 529 || type === 'overloaded_error') return 'overloaded';
  if (status === 429 || type === 'rate_limit_error') return 'rate-limit';
  if (status === 408 || type === 'timeout_error') return 'timeout';
  if (status === 400 || status === 413 || type === 'invalid_request_error') {
    return CONTEXT.test(text) ? 'context-overflow' : 'bad-request';
  }
  if (status === 409 || type === 'api_error') return 'server';
  if (status !== undefined && status >= 500) return 'server';
  if ((status !== undefined && status >= 400) || type === 'not_found_error') return 'bad-request';
  return 'server';
}

/** Maps an SDK `APIError` (HTTP status, or an `event: error` in a 200 stream). */
function fromApiError(error: ApiErrorLike): ProviderError {
  const status = error.status;
  const vendor = vendorError(error);
  let detail: string;
  if (vendor.message !== undefined || vendor.type !== undefined) {
    detail = [vendor.type, vendor.message].filter(Boolean).join(': ');
  } else if (status !== undefined) {
    // Not the API's JSON: a proxy's HTML page, a wrong base URL, an empty body.
    const contentType = header(error.headers, 'content-type') ?? 'no content-type';
    const body = (error.message ?? '').replace(new RegExp(`^${status}\\s*`), '');
    detail =
      error.error === undefined || error.error === null
        ? `non-JSON body (${contentType}): ${snippet(body) || '(empty)'}`
        : `unexpected body: ${snippet(JSON.stringify(error.error))}`;
  } else {
    detail = snippet(error.message ?? 'unknown error');
  }
  const bodyId = object(error.error).request_id;
  const requestId =
    header(error.headers, 'request-id') ?? (typeof bodyId === 'string' ? bodyId : undefined);
  const where = status === undefined ? 'stream error event' : `HTTP ${status}`;
  const kind = kindOf(status, vendor.type, `${vendor.code ?? ''} ${vendor.message ?? ''}`);
  return new ProviderError(
    `Anthropic ${where}: ${detail}${requestId ? ` (request-id ${requestId})` : ''}`,
    {
      kind,
      status,
      provider: PROVIDER,
      retryAfterMs: retryAfterMs(error.headers),
      retryable: shouldRetryHeader(error.headers) === false ? false : undefined,
      cause: error,
    },
  );
}

/** One header from the SDK's `Headers`, when there are headers. */
function header(headers: HeaderSource, name: string): string | undefined {
  if (headers && typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  return undefined;
}

/** The system error codes of an error and its causes (undici puts ECONNRESET on the cause). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = object(current).code;
    if (typeof code === 'string') codes.push(code);
    current = object(current).cause;
  }
  return codes;
}

/** The messages of an error and its causes, joined (`fetch failed: connect ECONNREFUSED …`). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const message = object(current).message;
    if (typeof message === 'string' && message && !parts.includes(message)) parts.push(message);
    current = object(current).cause;
  }
  return parts.join(': ') || String(error);
}

/**
 * Maps anything the Anthropic SDK (or the socket under it) throws to a mini-harness error: the
 * caller's abort → `CancelledError`; an `APIError` → `ProviderError` with the kind from its status
 * and body (`error.type`, quota and context-overflow messages), `retryAfterMs` from the headers and
 * `retryable: false` when the server says `x-should-retry: false`; connection failures and sockets
 * reset mid-body → `network`; timeouts → `timeout`. Errors that already are mini-harness errors
 * pass through.
 */
export function toAnthropicError(error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted) {
    return CancelledError.isInstance(error)
      ? error
      : new CancelledError('Anthropic request cancelled', { cause: error });
  }
  if (HarnessError.isInstance(error)) return error;
  const api = object(error) as ApiErrorLike;
  const name = api.name;
  if (name === 'APIConnectionTimeoutError') {
    return new ProviderError(`Anthropic request timed out: ${describe(error)}`, {
      kind: 'timeout',
      provider: PROVIDER,
      cause: error,
    });
  }
  if (name === 'APIConnectionError' || name === 'APIUserAbortError' || name === 'AbortError') {
    return new ProviderError(`Anthropic connection failed: ${describe(error)}`, {
      kind: 'network',
      provider: PROVIDER,
      cause: error,
    });
  }
  if ('status' in api && 'headers' in api && 'error' in api) return fromApiError(api);
  if (
    causeCodes(error).some((code) => NETWORK_CODES.test(code)) ||
    /terminated|fetch failed|socket|network|other side closed/i.test(describe(error))
  ) {
    return new ProviderError(`Anthropic connection broke mid-response: ${describe(error)}`, {
      kind: 'network',
      provider: PROVIDER,
      cause: error,
    });
  }
  if (error instanceof SyntaxError) {
    return new ProviderError(`Anthropic stream sent an event that is not JSON: ${error.message}`, {
      kind: 'server',
      provider: PROVIDER,
      cause: error,
    });
  }
  return new ProviderError(`Anthropic call failed unexpectedly: ${describe(error)}`, {
    kind: 'server',
    provider: PROVIDER,
    retryable: false,
    cause: error,
  });
}
