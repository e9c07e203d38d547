import { CancelledError, ProviderError, type ProviderErrorKind } from '@mh/core';
import { type HeaderSource, retryAfterMs, shouldRetryHeader } from '../retry-after.js';
import { recordedErrorBody } from './openai-client.js';

/** What an error message names besides the failure: the provider, its endpoint, the call's signal. */
export interface ErrorContext {
  /** Provider name for `ProviderError.provider` and the message. */
  readonly provider: string;
  /** The base URL the call went to. */
  readonly endpoint: string;
  /** The caller's signal: an abort while it is aborted is a cancellation, not a failure. */
  readonly signal?: AbortSignal;
}

/** The fields of an OpenAI-style error object (`{ error: { … } }` or a Responses `error` event). */
export interface ErrorBody {
  /** Machine-readable code, e.g. `insufficient_quota` (OpenRouter: the HTTP status). */
  readonly code?: unknown;
  /** Error type, e.g. `invalid_request_error`. */
  readonly type?: unknown;
  /** What the server said. */
  readonly message?: unknown;
}

/** 429 codes that mean "no money left", not "slow down": retrying cannot help. */
const QUOTA_CODES: readonly string[] = [
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
  'billing_hard_limit_reached',
  'billing_not_active',
];
const QUOTA_TEXT =
  /exceeded your current quota|insufficient[_ ]quota|billing|spend(ing)? limit|credit balance|out of credits/i;
const OVERFLOW_TEXT =
  /context_length_exceeded|maximum context length|context (length|window)|prompt is too long|input is too long/i;
const SNIPPET_CHARS = 200;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function tags(body: ErrorBody): string {
  return `${text(body.code) || String(body.code ?? '')} ${text(body.type)}`.toLowerCase();
}

function isQuota(body: ErrorBody): boolean {
  const codes = tags(body).split(' ');
  return codes.some((code) => QUOTA_CODES.includes(code)) || QUOTA_TEXT.test(text(body.message));
}

function isOverflow(body: ErrorBody): boolean {
  return OVERFLOW_TEXT.test(`${tags(body)} ${text(body.message)}`);
}

/** The kind of an HTTP error status, refined by the error body (or the text that replaced it). */
function kindOfStatus(status: number, body: ErrorBody, detail: string): ProviderErrorKind {
  const described: ErrorBody = { ...body, message: detail };
  if (status === 401 || status === 403) return 'auth';
  if (status >= 400 && status < 500 && (status === 402 || isQuota(described))) return 'quota';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limit';
  if (status === 529 || (status === 503 && /overload|capacity/i.test(detail))) return 'overloaded';
  if (status === 409 || status >= 500) return 'server';
  if (isOverflow(described)) return 'context-overflow';
  if (status >= 400) return 'bad-request';
  return 'server';
}

/** The kind of an error object that came without an HTTP status (inside a 200 stream). */
function kindOfBody(body: ErrorBody): ProviderErrorKind {
  // OpenRouter and some gateways put the HTTP status in `code`.
  if (typeof body.code === 'number' && body.code >= 400 && body.code < 600) {
    return kindOfStatus(body.code, body, text(body.message));
  }
  const labels = tags(body);
  if (isQuota(body)) return 'quota';
  if (/rate_limit|rate-limit|too_many_requests/.test(labels)) return 'rate-limit';
  if (isOverflow(body)) return 'context-overflow';
  if (/overload|server_busy|capacity/.test(`${labels} ${text(body.message).toLowerCase()}`)) {
    return 'overloaded';
  }
  if (/auth|api_key|permission|unauthorized|forbidden/.test(labels)) return 'auth';
  if (/timeout/.test(labels)) return 'timeout';
  if (/invalid|bad_request|not_found|unsupported|policy|image|mismatch/.test(labels)) {
    return 'bad-request';
  }
  return 'server';
}

function snippet(value: string): string {
  const collapsed = value.replace(/\s+/g, ' ').trim();
  return collapsed.length > SNIPPET_CHARS ? `${collapsed.slice(0, SNIPPET_CHARS)}…` : collapsed;
}

/**
 * A short description of a body that is not an OpenAI error object: an HTML page is named as one
 * (with its title), anything else is quoted, cut to 200 characters.
 */
export function describeBody(body: string, contentType = ''): string {
  if (body.trim() === '') return 'an empty body';
  if (/html/i.test(contentType) || /^\s*<(!doctype|html)/i.test(body)) {
    const title = /<title[^>]*>([^<]*)</i.exec(body)?.[1]?.trim();
    const visible = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, ' ');
    return `an HTML page${title ? ` titled "${title}"` : ''} (a proxy, or a wrong baseURL?): ${snippet(visible)}`;
  }
  return `"${snippet(body)}"`;
}

function retryableFrom(kind: ProviderErrorKind, headers: HeaderSource): boolean | undefined {
  const header = shouldRetryHeader(headers);
  if (header === false) return false;
  if (header === true) {
    return !['auth', 'quota', 'bad-request', 'context-overflow'].includes(kind);
  }
  return undefined;
}

/**
 * The `ProviderError` for an OpenAI-style error object that arrived without an HTTP status: an
 * `error` event or `response.failed` inside a 200 Responses stream, or an `{"error": …}` chunk in
 * a Chat stream. Classified from `code`/`type`, then from the message (quota, context length).
 */
export function errorFromBody(
  body: ErrorBody,
  context: ErrorContext,
  where = 'inside the stream',
  cause?: unknown,
): ProviderError {
  const kind = kindOfBody(body);
  const code = body.code ?? body.type;
  const label = code === undefined || code === null ? '' : ` (${String(code)})`;
  const message = text(body.message) || 'no message';
  return new ProviderError(`${context.provider}: error ${where}${label}: ${message}`, {
    kind,
    provider: context.provider,
    cause,
  });
}

interface SdkErrorFields {
  readonly status?: unknown;
  readonly headers?: HeaderSource;
  readonly error?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly type?: unknown;
  readonly cause?: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error object of a failed response: the SDK's (`{ error: {…} }` bodies), else the recorded
 * body's own fields when it has a `message` (vLLM's older `{ object: 'error', message, … }`).
 */
function errorObject(fields: SdkErrorFields, recorded: string | undefined): ErrorBody {
  if (isObject(fields.error)) return fields.error;
  try {
    const parsed: unknown = JSON.parse(recorded ?? '');
    if (isObject(parsed) && isObject(parsed.error)) return parsed.error;
    if (isObject(parsed) && typeof parsed.message === 'string') return parsed;
  } catch {
    // Not JSON: the raw text is described instead.
  }
  return {};
}

function statusError(status: number, fields: SdkErrorFields, context: ErrorContext): ProviderError {
  const headers = fields.headers ?? undefined;
  const recorded = recordedErrorBody(headers);
  const body = errorObject(fields, recorded);
  let detail = text(body.message);
  if (detail === '') {
    const contentType =
      (headers as { get?(name: string): string | null } | undefined)?.get?.('content-type') ?? '';
    const raw = recorded ?? text(fields.message).replace(/^\d{3}\s*/, '');
    detail = describeBody(raw.replace(/^status code \(no body\)$/, ''), contentType);
  }
  const kind = kindOfStatus(status, body, detail);
  const code = text(body.code) || text(body.type);
  return new ProviderError(
    `${context.provider}: HTTP ${status}${code ? ` ${code}` : ''} from ${context.endpoint}: ${detail}`,
    {
      kind,
      status,
      retryable: retryableFrom(kind, headers),
      retryAfterMs: retryAfterMs(headers),
      provider: context.provider,
      cause: fields,
    },
  );
}

function causeText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown };
    const part = [text(code), text(message)].filter(Boolean).join(' ');
    if (part && !parts.includes(part)) parts.push(part);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(': ') || String(error);
}

function className(error: unknown): string {
  const name = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' ? name : '';
}

/**
 * Maps anything an OpenAI SDK call or stream throws to a harness error: `CancelledError` when the
 * caller's signal aborted it, otherwise a `ProviderError` with kind, status, `retryable` and
 * `retryAfterMs`. Classifies by fields and class names, not `instanceof`, because a caller's client
 * may come from another copy of the SDK.
 */
export function toHarnessError(error: unknown, context: ErrorContext): Error {
  if (ProviderError.isInstance(error) || CancelledError.isInstance(error)) return error;
  const name = className(error);
  const errorName = (error as { name?: unknown } | null)?.name;
  if (context.signal?.aborted || name === 'APIUserAbortError' || errorName === 'AbortError') {
    return new CancelledError(`${context.provider}: call cancelled`, { cause: error });
  }
  const { provider, endpoint } = context;
  if (name === 'APIConnectionTimeoutError') {
    return new ProviderError(
      `${provider}: no response from ${endpoint} within the request timeout`,
      {
        kind: 'timeout',
        provider,
        cause: error,
      },
    );
  }
  if (name === 'APIConnectionError') {
    return new ProviderError(
      `${provider}: could not connect to ${endpoint}: ${causeText((error as SdkErrorFields).cause ?? error)}`,
      { kind: 'network', provider, cause: error },
    );
  }
  const fields = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorFields;
  if (typeof fields.status === 'number') return statusError(fields.status, fields, context);
  if (typeof fields.error === 'object' && fields.error !== null) {
    return errorFromBody(fields.error as ErrorBody, context, undefined, error);
  }
  if (error instanceof SyntaxError) {
    return new ProviderError(
      `${provider}: received malformed data in the event stream from ${endpoint}: ${error.message}`,
      { kind: 'server', provider, cause: error },
    );
  }
  return new ProviderError(`${provider}: the stream from ${endpoint} broke: ${causeText(error)}`, {
    kind: 'network',
    provider,
    cause: error,
  });
}
