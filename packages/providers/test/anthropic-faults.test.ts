import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { Anthropic } from '@anthropic-ai/sdk';
import { ProviderError, type StreamEvent, userMessage } from '@mh/core';
import { collectSettled } from '@mh/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { anthropic } from '../src/anthropic/index.js';
import { readFixture } from './fixtures.js';
import {
  type Handler,
  type Loopback,
  sendJsonError,
  sendSse,
  startLoopback,
} from './loopback-server.js';

// Faults injected on a loopback server in front of the real SDK client. Each must end as one clean
// ProviderError with the right fields, after exactly one HTTP request (the SDK's retries are off).

const REQUEST = {
  model: 'claude-sonnet-4-5',
  messages: [userMessage('What is the weather in Paris?', 'u1')],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
    },
  ],
};

/** The recorded tool_use_response.txt wire, one SSE event per entry. */
const WIRE = readFixture('anthropic-sdk-typescript/tool_use_response.txt')
  .split(/(?<=\n\n)/)
  .filter((event) => event.trim() !== '');
/** Index of the event carrying `{"locati`: the tool call's JSON is mid-way after it. */
const MID_TOOL_JSON = WIRE.findIndex((event) => event.includes('locati'));
const TEXT_EVENTS = WIRE.findIndex((event) => event.includes('content_block_stop'));

const errorBody = (type: string, message: string, details?: Record<string, unknown>) => ({
  type: 'error',
  error: { type, message, ...(details ? { details } : {}) },
  request_id: 'req_011CVLotQepAqEAyhJpvkpZN',
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes the first `count` recorded events, then either ends cleanly or resets the socket. */
function partial(count: number, ending: 'end' | 'reset', extra = ''): Handler {
  return async (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    response.write(WIRE.slice(0, count).join('') + extra);
    await delay(30);
    if (ending === 'end') response.end();
    else response.socket?.destroy();
  };
}

const sendRaw =
  (status: number, contentType: string, body: string): Handler =>
  (_request, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  };

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const NGINX_WELCOME =
  '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n<body><h1>Welcome to nginx!</h1></body>\n</html>\n';

let server: Loopback | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function fail(handler: Handler): Promise<{ error: ProviderError; events: StreamEvent[] }> {
  server = await startLoopback(handler);
  const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server.url });
  const { items: events, error } = await collectSettled(provider.stream(REQUEST));
  expect(ProviderError.isInstance(error), `expected a ProviderError, got ${error}`).toBe(true);
  expect(server.requests).toHaveLength(1);
  return { error: error as ProviderError, events };
}

type Expected = Partial<Pick<ProviderError, 'kind' | 'status' | 'retryable' | 'retryAfterMs'>>;

const HTTP_FAULTS: [string, Handler, Expected, string][] = [
  [
    '429 with retry-after',
    (_q, r) =>
      sendJsonError(
        r,
        429,
        errorBody(
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
        ),
        {
          'retry-after': '2',
          'anthropic-ratelimit-input-tokens-remaining': '0',
        },
      ),
    { kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 2000 },
    'rate limit',
  ],
  [
    '429 with retry-after-ms',
    (_q, r) =>
      sendJsonError(r, 429, errorBody('rate_limit_error', 'Rate limited'), {
        'retry-after': '2',
        'retry-after-ms': '1250.5',
      }),
    { kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 1250.5 },
    'Rate limited',
  ],
  [
    '529 overloaded',
    (_q, r) => sendJsonError(r, 529, errorBody('overloaded_error', 'Overloaded')),
    { kind: 'overloaded', status: 529, retryable: true },
    'overloaded_error: Overloaded',
  ],
  [
    '500 api_error',
    (_q, r) => sendJsonError(r, 500, errorBody('api_error', 'Internal server error')),
    { kind: 'server', status: 500, retryable: true },
    'Internal server error',
  ],
  [
    '503 with x-should-retry: false',
    (_q, r) =>
      sendJsonError(r, 503, errorBody('api_error', 'Service unavailable'), {
        'x-should-retry': 'false',
      }),
    { kind: 'server', status: 503, retryable: false },
    'Service unavailable',
  ],
  [
    '401 invalid key',
    (_q, r) => sendJsonError(r, 401, errorBody('authentication_error', 'invalid x-api-key')),
    { kind: 'auth', status: 401, retryable: false },
    'invalid x-api-key',
  ],
  [
    '400 credit balance too low',
    (_q, r) =>
      sendJsonError(
        r,
        400,
        errorBody(
          'invalid_request_error',
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
        ),
      ),
    { kind: 'quota', status: 400, retryable: false },
    'credit balance',
  ],
  [
    '429 spend limit reached',
    (_q, r) =>
      sendJsonError(
        r,
        429,
        errorBody('rate_limit_error', 'You have reached your specified API usage limits.', {
          error_code: 'enforced_spend_limit_reached',
        }),
        { 'retry-after': '3600' },
      ),
    { kind: 'quota', status: 429, retryable: false },
    'usage limits',
  ],
  [
    '400 prompt too long',
    (_q, r) =>
      sendJsonError(
        r,
        400,
        errorBody('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
      ),
    { kind: 'context-overflow', status: 400, retryable: false },
    'prompt is too long',
  ],
  [
    'HTML 502 page from a proxy',
    sendRaw(502, 'text/html', NGINX_502),
    { kind: 'server', status: 502, retryable: true },
    'HTTP 502: non-JSON body (text/html): <html> <head><title>502 Bad Gateway</title>',
  ],
  [
    'non-JSON 200 body',
    sendRaw(200, 'text/html; charset=utf-8', NGINX_WELCOME),
    { kind: 'server', status: 200, retryable: false },
    'expected an event stream, received text/html; charset=utf-8: <!DOCTYPE html> <html> <head> <title>Welcome to nginx!</title>',
  ],
  [
    'non-streamed JSON 200 body',
    sendRaw(200, 'application/json', '{"id":"msg_1","type":"message","content":[]}'),
    { kind: 'server', status: 200, retryable: false },
    'received application/json: {"id":"msg_1"',
  ],
  [
    'wrong path behind the base URL (404 page)',
    sendRaw(404, 'text/plain', 'Cannot POST /v1/messages'),
    { kind: 'bad-request', status: 404, retryable: false },
    'HTTP 404: non-JSON body (text/plain): Cannot POST /v1/messages',
  ],
];

describe('AnthropicProvider fault mapping', () => {
  it.each(HTTP_FAULTS)(
    '%s → a ProviderError after one request',
    async (_name, handler, expected, text) => {
      const { error } = await fail(handler);
      expect(error).toMatchObject({ provider: 'anthropic', ...expected });
      expect(error.message).toContain(text);
    },
  );

  it('a connection reset inside a tool call JSON → network, retryable, no tool-call-end', async () => {
    const { error, events } = await fail(partial(MID_TOOL_JSON + 1, 'reset'));
    expect(error).toMatchObject({ kind: 'network', retryable: true, status: undefined });
    expect(events).toContainEqual({
      type: 'tool-call-delta',
      id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
      json: '{"locati',
    });
    expect(
      events.some((event) => event.type === 'tool-call-end' || event.type === 'message-end'),
    ).toBe(false);
  });

  it('a stream that ends cleanly before message_stop → network, says how far it got', async () => {
    const { error, events } = await fail(partial(TEXT_EVENTS, 'end'));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toContain('ended before message_stop');
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(2);
  });

  it('an overloaded_error event after some text → overloaded, retryable', async () => {
    const errorEvent = `event: error\ndata: ${JSON.stringify(errorBody('overloaded_error', 'Overloaded'))}\n\n`;
    const { error, events } = await fail(partial(TEXT_EVENTS, 'end', errorEvent));
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, status: undefined });
    expect(error.message).toContain('stream error event: overloaded_error: Overloaded');
    expect(events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('')).toBe(
      "I'll check the current weather in Paris for you.",
    );
  });

  it('an api_error event mid-stream → server, retryable', async () => {
    const errorEvent = `event: error\ndata: ${JSON.stringify(errorBody('api_error', 'Internal server error'))}\n\n`;
    const { error } = await fail(partial(MID_TOOL_JSON + 1, 'end', errorEvent));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
  });

  it('invalid JSON in tool arguments → rawInput kept, no throw', async () => {
    // The recorded fragments with the opening quote of the key removed: `{location": "Paris"}`.
    const wire = WIRE.join('').replace('{\\"locati', '{locati');
    server = await startLoopback((_request, response) => sendSse(response, wire));
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server.url });
    const { items: events, error } = await collectSettled(provider.stream(REQUEST));
    expect(error).toBeUndefined();
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.message.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
      name: 'get_weather',
      input: {},
      rawInput: '{location": "Paris"}',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('a closed port (wrong base URL) → network, retryable, one fetch', async () => {
    const port = await closedPort();
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: `http://127.0.0.1:${port}` });
    const { error } = await collectSettled(provider.stream(REQUEST));
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'anthropic' });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(fetchSpy).toHaveBeenCalledTimes(1);
  });

  it('no response headers within timeoutMs → timeout, one request', async () => {
    server = await startLoopback(async (_request, response) => {
      await delay(8000);
      sendJsonError(response, 500, errorBody('api_error', 'late'));
    });
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, timeoutMs: 150 });
    const started = Date.now();
    const { error } = await collectSettled(provider.stream(REQUEST));
    // Ended by the 150 ms timeout, long before the server's late 500 (5 s: room for load).
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });

  it('a caller-supplied client with SDK retries on still makes exactly one request', async () => {
    server = await startLoopback((_request, response) =>
      sendJsonError(response, 529, errorBody('overloaded_error', 'Overloaded')),
    );
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, maxRetries: 3 });
    const { error } = await collectSettled(anthropic({ client }).stream(REQUEST));
    expect(error).toMatchObject({ kind: 'overloaded' });
    expect(server.requests).toHaveLength(1);
    expect(client.maxRetries).toBe(3);
  });
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
