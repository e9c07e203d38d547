import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { CancelledError, ConfigError, ProviderError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { snippet, toAnthropicError } from './anthropic-error.js';

// Error bodies as the Messages API sends them: { type: 'error', error: { type, message }, request_id }.
const body = (type: string, message: string, details?: Record<string, unknown>) => ({
  type: 'error',
  error: { type, message, ...(details ? { details } : {}) },
  request_id: 'req_011CVLotQepAqEAyhJpvkpZN',
});

function http(status: number, json: unknown, headers: Record<string, string> = {}): APIError {
  // The SDK's own factory, as it builds errors from an HTTP response.
  return APIError.generate(
    status,
    json as object,
    undefined,
    new Headers({ 'content-type': 'application/json', ...headers }),
  );
}

function mapped(error: unknown, signal?: AbortSignal): ProviderError {
  const result = toAnthropicError(error, signal);
  if (!ProviderError.isInstance(result)) throw new Error(`not a ProviderError: ${result}`);
  return result;
}

describe('toAnthropicError', () => {
  it.each([
    [401, body('authentication_error', 'invalid x-api-key'), 'auth', false],
    [
      403,
      body(
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ),
      'auth',
      false,
    ],
    [
      429,
      body(
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
      ),
      'rate-limit',
      true,
    ],
    [
      400,
      body(
        'invalid_request_error',
        'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      ),
      'quota',
      false,
    ],
    [
      400,
      body(
        'invalid_request_error',
        'You have reached your specified API usage limits. You will regain access on 2026-01-01 at 00:00 UTC.',
      ),
      'quota',
      false,
    ],
    [
      429,
      body('rate_limit_error', 'Spend limit reached.', {
        error_code: 'enforced_spend_limit_reached',
      }),
      'quota',
      false,
    ],
    [402, body('billing_error', 'Payment required.'), 'quota', false],
    [529, body('overloaded_error', 'Overloaded'), 'overloaded', true],
    [500, body('api_error', 'Internal server error'), 'server', true],
    [503, body('api_error', 'Service unavailable'), 'server', true],
    [409, body('conflict_error', 'Conflict'), 'server', true],
    [
      400,
      body('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      'context-overflow',
      false,
    ],
    [
      400,
      body(
        'invalid_request_error',
        'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      ),
      'context-overflow',
      false,
    ],
    [
      400,
      body(
        'invalid_request_error',
        'messages.1.content.0.tool_use.input: Input should be an object',
      ),
      'bad-request',
      false,
    ],
    [404, body('not_found_error', 'model: claude-nonexistent'), 'bad-request', false],
    [
      413,
      body('request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
      'bad-request',
      false,
    ],
    [422, body('invalid_request_error', 'Unprocessable'), 'bad-request', false],
    [408, body('timeout_error', 'Request timeout'), 'timeout', true],
    [504, body('timeout_error', 'Request timed out'), 'timeout', true],
  ] as const)('maps HTTP %i %j to %s', (status, json, kind, retryable) => {
    const error = mapped(http(status, json));
    expect(error).toMatchObject({ kind, status, retryable, provider: 'anthropic' });
    expect(error.message).toContain(json.error.message);
    expect(error.message).toContain('req_011CVLotQepAqEAyhJpvkpZN');
  });

  it('takes retryAfterMs from retry-after-ms, then retry-after', () => {
    const json = body('rate_limit_error', 'Rate limited');
    expect(mapped(http(429, json, { 'retry-after': '2' })).retryAfterMs).toBe(2000);
    expect(
      mapped(http(429, json, { 'retry-after': '2', 'retry-after-ms': '1500' })).retryAfterMs,
    ).toBe(1500);
  });

  it('honours x-should-retry: false', () => {
    const error = mapped(
      http(503, body('api_error', 'Unavailable'), { 'x-should-retry': 'false' }),
    );
    expect(error).toMatchObject({ kind: 'server', retryable: false });
  });

  it('names the request id when the server sent one', () => {
    const error = mapped(http(500, body('api_error', 'Boom'), { 'request-id': 'req_abc' }));
    expect(error.message).toContain('req_abc');
  });

  it('says what a non-JSON error body was', () => {
    const html =
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body></html>';
    const error = mapped(
      APIError.generate(502, undefined, html, new Headers({ 'content-type': 'text/html' })),
    );
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true });
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('<title>502 Bad Gateway</title>');
  });

  it.each([
    ['overloaded_error', 'overloaded'],
    ['api_error', 'server'],
    ['rate_limit_error', 'rate-limit'],
    ['billing_error', 'quota'],
    ['invalid_request_error', 'bad-request'],
  ] as const)('maps a mid-stream %s event to %s', (type, kind) => {
    // How the SDK's Stream reports an `event: error` inside a 200 response: no status.
    const streamError = new APIError(
      undefined,
      body(type, 'mid-stream'),
      undefined,
      new Headers({ 'content-type': 'text/event-stream' }),
      type as never,
    );
    expect(mapped(streamError)).toMatchObject({ kind, status: undefined });
  });

  it('maps connection errors to network and connection timeouts to timeout', () => {
    const refused = new APIConnectionError({
      cause: Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
          code: 'ECONNREFUSED',
        }),
      }),
    });
    const network = mapped(refused);
    expect(network).toMatchObject({ kind: 'network', retryable: true });
    expect(network.message).toContain('ECONNREFUSED');
    expect(mapped(new APIConnectionTimeoutError())).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
  });

  it('maps a socket reset while reading the body to network', () => {
    const reset = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(mapped(reset)).toMatchObject({ kind: 'network', retryable: true });
  });

  it('maps a non-JSON SSE event to a server error', () => {
    expect(mapped(new SyntaxError('Unexpected token < in JSON'))).toMatchObject({ kind: 'server' });
  });

  it('gives CancelledError whenever the caller aborted', () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      CancelledError.isInstance(toAnthropicError(new APIUserAbortError(), controller.signal)),
    ).toBe(true);
    expect(
      CancelledError.isInstance(
        toAnthropicError(http(500, body('api_error', 'x')), controller.signal),
      ),
    ).toBe(true);
  });

  it('passes mini-harness errors through unchanged', () => {
    const config = new ConfigError('maxOutputTokens', 'too small');
    expect(toAnthropicError(config)).toBe(config);
  });

  it('wraps an unknown failure as a non-retryable server error', () => {
    expect(mapped(new RangeError('bug'))).toMatchObject({ kind: 'server', retryable: false });
  });
});

describe('snippet', () => {
  it('flattens whitespace and cuts long text', () => {
    expect(snippet('a\n\n  b')).toBe('a b');
    expect(snippet('x'.repeat(300), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});
