import { CancelledError, ProviderError } from '@mh/core';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from 'openai';
import { describe, expect, it } from 'vitest';
import { describeBody, errorFromBody, toHarnessError } from './openai-error.js';

const context = { provider: 'openai', endpoint: 'https://api.test/v1' };

function mapped(error: unknown, signal?: AbortSignal): ProviderError {
  const result = toHarnessError(error, { ...context, signal });
  expect(ProviderError.isInstance(result)).toBe(true);
  return result as ProviderError;
}

function headers(values: Record<string, string> = {}): Headers {
  return new Headers({ 'content-type': 'application/json', ...values });
}

describe('toHarnessError', () => {
  it.each([
    [401, undefined, 'auth', false],
    [403, undefined, 'auth', false],
    [402, undefined, 'quota', false],
    [408, undefined, 'timeout', true],
    [409, undefined, 'server', true],
    [413, undefined, 'bad-request', false],
    [422, undefined, 'bad-request', false],
    [429, 'rate_limit_exceeded', 'rate-limit', true],
    [429, 'insufficient_quota', 'quota', false],
    [429, 'organization_spend_limit_exceeded', 'quota', false],
    [400, 'context_length_exceeded', 'context-overflow', false],
    [400, 'invalid_value', 'bad-request', false],
    [500, undefined, 'server', true],
    [502, undefined, 'server', true],
    [529, undefined, 'overloaded', true],
  ])('maps HTTP %i (code %s) to %s, retryable %s', (status, code, kind, retryable) => {
    const error = APIError.generate(
      status,
      { error: { message: 'm', code, type: code } },
      undefined,
      headers(),
    );
    expect(mapped(error)).toMatchObject({ kind, retryable, status, provider: 'openai' });
  });

  it('recognises quota by message when the 429 has no code', () => {
    const error = new RateLimitError(
      429,
      { message: 'You exceeded your current quota, please check your plan and billing details.' },
      undefined,
      headers(),
    );
    expect(mapped(error).kind).toBe('quota');
  });

  it('reads retry-after-ms, retry-after and x-should-retry', () => {
    const limited = new RateLimitError(
      429,
      { message: 'slow' },
      undefined,
      headers({ 'retry-after': '3' }),
    );
    expect(mapped(limited).retryAfterMs).toBe(3000);
    const precise = new RateLimitError(
      429,
      { message: 'slow' },
      undefined,
      headers({ 'retry-after-ms': '250', 'retry-after': '3' }),
    );
    expect(mapped(precise).retryAfterMs).toBe(250);
    const vetoed = new InternalServerError(
      500,
      { message: 'x' },
      undefined,
      headers({ 'x-should-retry': 'false' }),
    );
    expect(mapped(vetoed).retryable).toBe(false);
    const forced = new BadRequestError(
      400,
      { message: 'x' },
      undefined,
      headers({ 'x-should-retry': 'true' }),
    );
    expect(mapped(forced).retryable).toBe(false);
  });

  it('quotes the SDK`s text when the body was not JSON', () => {
    const error = APIError.generate(
      502,
      undefined,
      'upstream connect error',
      new Headers({ 'content-type': 'text/plain' }),
    );
    const result = mapped(error);
    expect(result).toMatchObject({ kind: 'server', status: 502 });
    expect(result.message).toBe(
      'openai: HTTP 502 from https://api.test/v1: "upstream connect error"',
    );
  });

  it('names the status code of an error with an auth body', () => {
    const error = new AuthenticationError(
      401,
      { message: 'Incorrect API key provided: sk-...', code: 'invalid_api_key' },
      undefined,
      headers(),
    );
    expect(mapped(error).message).toBe(
      'openai: HTTP 401 invalid_api_key from https://api.test/v1: Incorrect API key provided: sk-...',
    );
  });

  it('maps connection failures to network and connection timeouts to timeout', () => {
    const refused = new APIConnectionError({
      cause: Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
          code: 'ECONNREFUSED',
        }),
      }),
    });
    const network = mapped(refused);
    expect(network).toMatchObject({ kind: 'network', retryable: true, status: undefined });
    expect(network.message).toContain('could not connect to https://api.test/v1');
    expect(network.message).toContain('ECONNREFUSED');
    expect(mapped(new APIConnectionTimeoutError())).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });

  it('maps a raw error while reading the body to network, a JSON SyntaxError to server', () => {
    const reset = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    const broken = mapped(reset);
    expect(broken).toMatchObject({ kind: 'network', retryable: true });
    expect(broken.message).toContain('UND_ERR_SOCKET other side closed');
    expect(mapped(new SyntaxError('Unexpected end of JSON input'))).toMatchObject({
      kind: 'server',
      retryable: true,
    });
  });

  it('maps a status-less APIError (error chunk inside a stream) by its body', () => {
    const inStream = new APIError(
      undefined,
      { code: 'insufficient_quota', message: 'quota' },
      undefined,
      headers(),
    );
    expect(mapped(inStream)).toMatchObject({ kind: 'quota', retryable: false, status: undefined });
  });

  it('turns aborts into CancelledError', () => {
    const controller = new AbortController();
    controller.abort();
    expect(CancelledError.isInstance(toHarnessError(new APIUserAbortError(), context))).toBe(true);
    expect(
      CancelledError.isInstance(
        toHarnessError(new Error('anything'), { ...context, signal: controller.signal }),
      ),
    ).toBe(true);
  });

  it('passes harness errors through', () => {
    const original = new ProviderError('x', { kind: 'timeout' });
    expect(toHarnessError(original, context)).toBe(original);
  });
});

describe('errorFromBody', () => {
  it('treats a numeric code as an HTTP status (OpenRouter)', () => {
    expect(errorFromBody({ code: 429, message: 'Rate limited' }, context)).toMatchObject({
      kind: 'rate-limit',
    });
    expect(errorFromBody({ code: 401, message: 'No auth' }, context)).toMatchObject({
      kind: 'auth',
    });
  });

  it('falls back to server for an unknown error', () => {
    const error = errorFromBody({ message: 'weird' }, context);
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect(error.message).toBe('openai: error inside the stream: weird');
  });
});

describe('describeBody', () => {
  it('names an HTML page by its title and strips its markup', () => {
    const page =
      '<!DOCTYPE html><html><head><title>Just a moment...</title><style>body{color:red}</style></head><body><h1>Checking your browser</h1></body></html>';
    expect(describeBody(page, 'text/html')).toBe(
      'an HTML page titled "Just a moment..." (a proxy, or a wrong baseURL?): Just a moment... Checking your browser',
    );
  });

  it('cuts long bodies to 200 characters', () => {
    expect(describeBody('x'.repeat(500))).toBe(`"${'x'.repeat(200)}…"`);
    expect(describeBody('   ')).toBe('an empty body');
  });
});
