import type { ServerResponse } from 'node:http';
import {
  CancelledError,
  type ModelRequest,
  ProviderError,
  type StreamEvent,
  type StreamOptions,
  userMessage,
} from '@mh/core';
import { OpenAI } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIOptions, openai } from '../src/openai/index.js';
import { chunksToSse, readFixture } from './fixtures.js';
import {
  type Handler,
  type Loopback,
  sendJsonError,
  sendSse,
  startLoopback,
} from './loopback-server.js';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<Loopback> {
  const server = await startLoopback(handler);
  servers.push(server);
  return server;
}

const request: ModelRequest = {
  model: 'gpt-test',
  messages: [userMessage('hello', 'u1')],
  tools: [
    {
      name: 'weather',
      description: 'Weather at a location',
      inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
    },
  ],
};

interface Outcome {
  readonly events: StreamEvent[];
  readonly error: unknown;
  readonly ms: number;
}

async function run(
  options: OpenAIOptions,
  streamOptions: StreamOptions = {},
  onEvent: (event: StreamEvent) => void = () => {},
): Promise<Outcome> {
  const events: StreamEvent[] = [];
  const started = Date.now();
  let error: unknown;
  try {
    for await (const event of openai({ apiKey: 'test-key', ...options }).stream(
      request,
      streamOptions,
    )) {
      events.push(event);
      onEvent(event);
    }
  } catch (caught) {
    error = caught;
  }
  return { events, error, ms: Date.now() - started };
}

function providerError(outcome: Outcome): ProviderError {
  expect(ProviderError.isInstance(outcome.error), String(outcome.error)).toBe(true);
  expect(outcome.events.some((event) => event.type === 'message-end')).toBe(false);
  return outcome.error as ProviderError;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
}

function sse(lines: readonly string[], done = true): string {
  return lines.map((line) => `data: ${line}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}

/** Responses wire with `event:` lines rebuilt from each payload's type. */
function responsesSse(events: readonly Record<string, unknown>[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/** Writes part of a body, then resets the connection. */
function resetAfter(response: ServerResponse, wire: string): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(wire);
  setTimeout(() => response.socket?.destroy(), 20);
}

const quotaBody = {
  error: {
    message: 'You exceeded your current quota, please check your plan and billing details.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
};

describe('OpenAICompatibleProvider faults (loopback, real SDK, SDK retries off)', () => {
  it('maps 429 with retry-after to a retryable rate-limit with retryAfterMs, after 1 request', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(
        response,
        429,
        {
          error: {
            message: 'Rate limit reached for requests',
            type: 'requests',
            code: 'rate_limit_exceeded',
          },
        },
        { 'retry-after': '2' },
      ),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
      provider: 'openai',
    });
    expect(error.message).toContain('Rate limit reached');
    expect(server.requests).toHaveLength(1);
  });

  it('prefers retry-after-ms to retry-after', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(
        response,
        429,
        { error: { message: 'slow down' } },
        {
          'retry-after-ms': '1500',
          'retry-after': '9',
        },
      ),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'rate-limit', retryAfterMs: 1500, retryable: true });
    expect(server.requests).toHaveLength(1);
  });

  it('maps an insufficient_quota 429 to quota, not retryable', async () => {
    const server = await serve((_request, response) => sendJsonError(response, 429, quotaBody));
    const error = providerError(await run({ baseURL: server.url, name: 'gateway' }));
    expect(error).toMatchObject({
      kind: 'quota',
      status: 429,
      retryable: false,
      provider: 'gateway',
    });
    expect(error.message).toMatch(/^gateway: HTTP 429 insufficient_quota/);
    expect(server.requests).toHaveLength(1);
  });

  it('maps 500 to a retryable server error', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(response, 500, {
        error: { message: 'The server had an error', type: 'server_error' },
      }),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect(server.requests).toHaveLength(1);
  });

  it('maps 503 saying overloaded to overloaded, a plain 503 to server', async () => {
    const server = await serve((_request, response, index) =>
      sendJsonError(response, 503, {
        error: {
          message: index === 0 ? 'The engine is currently overloaded' : 'Service unavailable',
        },
      }),
    );
    const overloaded = providerError(await run({ baseURL: server.url }));
    const unavailable = providerError(await run({ baseURL: server.url }));
    expect(overloaded).toMatchObject({ kind: 'overloaded', status: 503, retryable: true });
    expect(unavailable).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('obeys x-should-retry: false', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(response, 503, { error: { message: 'down' } }, { 'x-should-retry': 'false' }),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'server', retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('maps 401 to auth, not retryable', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(response, 401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false });
    expect(error.message).toContain('Incorrect API key');
    expect(server.requests).toHaveLength(1);
  });

  it('maps context_length_exceeded, and vLLM`s bare error object, to context-overflow', async () => {
    const server = await serve((_request, response, index) =>
      sendJsonError(
        response,
        400,
        index === 0
          ? {
              error: {
                message: "This model's maximum context length is 128000 tokens.",
                type: 'invalid_request_error',
                code: 'context_length_exceeded',
              },
            }
          : {
              object: 'error',
              message:
                "This model's maximum context length is 4096 tokens. However, you requested 5000.",
              type: 'BadRequestError',
              code: 400,
            },
      ),
    );
    const openaiStyle = providerError(await run({ baseURL: server.url }));
    const vllmStyle = providerError(await run({ baseURL: server.url }));
    expect(openaiStyle).toMatchObject({ kind: 'context-overflow', status: 400, retryable: false });
    expect(vllmStyle).toMatchObject({ kind: 'context-overflow', status: 400, retryable: false });
    expect(vllmStyle.message).toContain('maximum context length is 4096');
    expect(server.requests).toHaveLength(2);
  });

  it('names an HTML 502 page from a proxy by its title', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end(
        '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      );
    });
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true });
    expect(error.message).toContain('HTTP 502');
    expect(error.message).toContain('HTML page titled "502 Bad Gateway"');
    expect(error.message).toContain('nginx');
    expect(server.requests).toHaveLength(1);
  });

  it('quotes the page behind a wrong path (404) as a bad request', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!DOCTYPE html><html><body><pre>Cannot POST /chat/completions</pre></body></html>',
      );
    });
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'bad-request', status: 404, retryable: false });
    expect(error.message).toContain('Cannot POST /chat/completions');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a non-JSON, non-SSE 200 body, quoting it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('hello from a captive portal');
    });
    const outcome = await run({ baseURL: server.url });
    const error = providerError(outcome);
    expect(error).toMatchObject({ kind: 'server', status: 200, retryable: false });
    expect(error.message).toContain('expected an event stream');
    expect(error.message).toContain('text/plain');
    expect(error.message).toContain('hello from a captive portal');
    expect(outcome.events).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('classifies a JSON error object sent with HTTP 200 instead of a stream', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(quotaBody));
    });
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'quota', retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('reports a stream that ends without a finish_reason as a retryable network error', async () => {
    const [wire] = chunksToSse(readFixture('vercel-ai/openai-text.chunks.txt'));
    const cut = (wire ?? '').split('\n\n').slice(0, 40).join('\n\n');
    const server = await serve((_request, response) => sendSse(response, `${cut}\n\n`));
    const outcome = await run({ baseURL: server.url });
    const error = providerError(outcome);
    expect(error).toMatchObject({ kind: 'network', retryable: true, status: undefined });
    expect(error.message).toContain('ended without a finish_reason after 40 chunks');
    expect(outcome.events.filter((event) => event.type === 'text-delta').length).toBe(39);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a connection reset inside a tool call`s arguments as network; the call never ends', async () => {
    const [wire] = chunksToSse(readFixture('vercel-ai/deepseek-tool-call.chunks.txt'));
    const events = (wire ?? '').split('\n\n');
    // Up to the chunk that carries `"location`: the arguments are half sent.
    const cut = events.findIndex((event) => event.includes('"arguments":"location"'));
    const server = await serve((_request, response) =>
      resetAfter(response, `${events.slice(0, cut + 1).join('\n\n')}\n\n`),
    );
    const outcome = await run({ baseURL: server.url });
    const error = providerError(outcome);
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    const types = outcome.events.map((event) => event.type);
    expect(types).toContain('tool-call-start');
    expect(types).toContain('tool-call-delta');
    expect(types).not.toContain('tool-call-end');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps invalid tool-call JSON as rawInput with input {}', async () => {
    const server = await serve((_request, response) =>
      sendSse(
        response,
        sse([
          chunk({
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'weather', arguments: '{"location": ' },
              },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"Par' } }] }),
          chunk({}, 'tool_calls'),
        ]),
      ),
    );
    const outcome = await run({ baseURL: server.url });
    expect(outcome.error).toBeUndefined();
    const end = outcome.events.at(-1) as Extract<StreamEvent, { type: 'message-end' }>;
    expect(end.type).toBe('message-end');
    expect(end.stopReason).toBe('tool-use');
    expect(end.message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'weather', input: {}, rawInput: '{"location": "Par' },
    ]);
    expect(outcome.events).toContainEqual({
      type: 'tool-call-end',
      id: 'call_1',
      name: 'weather',
      input: {},
    });
    expect(server.requests).toHaveLength(1);
  });

  it('classifies an {"error": …} chunk inside a Chat stream', async () => {
    const server = await serve((_request, response, index) =>
      sendSse(
        response,
        sse(
          [
            chunk({ role: 'assistant', content: 'Hel' }),
            index === 0
              ? JSON.stringify({ error: { message: 'Upstream overloaded', code: 502 } })
              : JSON.stringify(quotaBody),
          ],
          false,
        ),
      ),
    );
    const upstream = await run({ baseURL: server.url, name: 'openrouter' });
    const quota = await run({ baseURL: server.url, name: 'openrouter' });
    expect(providerError(upstream)).toMatchObject({
      kind: 'server',
      retryable: true,
      provider: 'openrouter',
    });
    expect(upstream.events.map((event) => event.type)).toEqual(['message-start', 'text-delta']);
    expect(providerError(quota)).toMatchObject({ kind: 'quota', retryable: false });
    expect(server.requests).toHaveLength(2);
  });

  it('reports malformed JSON in a data line as a server error', async () => {
    const server = await serve((_request, response) =>
      sendSse(response, `data: ${chunk({ content: 'Hi' })}\n\ndata: {"choices": [\n\n`),
    );
    const error = providerError(await run({ baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect(error.message).toContain('malformed data');
    expect(server.requests).toHaveLength(1);
  });

  it('fails fast on a wrong base URL (closed port) as network, with one fetch on a caller`s client', async () => {
    const closed = await startLoopback(() => {});
    const baseURL = closed.url;
    await closed.close();
    let fetches = 0;
    // A caller's client keeps the SDK default of 2 retries: the adapter must switch them off per call.
    const client = new OpenAI({
      apiKey: 'k',
      baseURL,
      fetch: (input, init) => {
        fetches++;
        return fetch(input, init);
      },
    });
    const outcome = await run({ apiKey: undefined, client });
    const error = providerError(outcome);
    expect(error).toMatchObject({ kind: 'network', retryable: true, status: undefined });
    expect(error.message).toContain(`could not connect to ${baseURL}`);
    expect(error.message).toContain('ECONNREFUSED');
    expect(fetches).toBe(1);
    // One fetch already proves no retry; the bound is loose for a loaded CI machine.
    expect(outcome.ms).toBeLessThan(5000);
  });

  it('sends one request on a caller`s client with default retries when the server answers 500', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(response, 500, { error: { message: 'boom' } }),
    );
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url });
    const error = providerError(await run({ apiKey: undefined, client }));
    expect(error).toMatchObject({ kind: 'server', status: 500 });
    expect(server.requests).toHaveLength(1);
  });

  it('maps a request timeout before the headers to timeout', async () => {
    const server = await serve(() => {
      // Never answers.
    });
    const outcome = await run({ baseURL: server.url, timeoutMs: 150 });
    const error = providerError(outcome);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(server.requests).toHaveLength(1);
    // The server never answers: only the 150 ms timeout ends the call (5 s: room for load).
    expect(outcome.ms).toBeLessThan(5000);
  });

  it('ends promptly with CancelledError when the caller aborts mid-stream', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${chunk({ role: 'assistant', content: 'Hello' })}\n\n`);
      // Then silence: only the abort can end this call.
    });
    const controller = new AbortController();
    let abortedAt = 0;
    const outcome = await run({ baseURL: server.url }, { signal: controller.signal }, (event) => {
      if (event.type === 'text-delta') {
        abortedAt = Date.now();
        setTimeout(() => controller.abort(), 10);
      }
    });
    expect(CancelledError.isInstance(outcome.error)).toBe(true);
    // Only the abort can end this call; 5 s leaves room for a loaded CI machine.
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(outcome.events.map((event) => event.type)).toEqual(['message-start', 'text-delta']);
    expect(server.requests).toHaveLength(1);
  });

  it('throws CancelledError without a request when the signal is already aborted', async () => {
    const server = await serve((_request, response) => sendSse(response, sse([chunk({}, 'stop')])));
    const outcome = await run({ baseURL: server.url }, { signal: AbortSignal.abort() });
    expect(CancelledError.isInstance(outcome.error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});

const created = {
  type: 'response.created',
  sequence_number: 0,
  response: {
    id: 'resp_1',
    object: 'response',
    status: 'in_progress',
    model: 'gpt-test',
    output: [],
  },
};
const callAdded = {
  type: 'response.output_item.added',
  sequence_number: 1,
  output_index: 0,
  item: {
    id: 'fc_1',
    type: 'function_call',
    status: 'in_progress',
    arguments: '',
    call_id: 'call_1',
    name: 'weather',
  },
};
const argumentsDelta = {
  type: 'response.function_call_arguments.delta',
  sequence_number: 2,
  item_id: 'fc_1',
  output_index: 0,
  delta: '{"location":"Pa',
};

describe('OpenAIResponsesProvider faults (loopback, real SDK, SDK retries off)', () => {
  it('maps 429 with retry-after to rate-limit after 1 request', async () => {
    const server = await serve((_request, response) =>
      sendJsonError(
        response,
        429,
        { error: { message: 'Rate limit', code: 'rate_limit_exceeded' } },
        {
          'retry-after': '1',
        },
      ),
    );
    const error = providerError(await run({ api: 'responses', baseURL: server.url }));
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 1000,
      retryable: true,
    });
    expect(server.requests[0]?.url).toBe('/responses');
    expect(server.requests).toHaveLength(1);
  });

  it('classifies response.failed alone from its error code', async () => {
    const server = await serve((_request, response) =>
      sendSse(
        response,
        responsesSse([
          created,
          {
            type: 'response.failed',
            sequence_number: 1,
            response: {
              ...created.response,
              status: 'failed',
              error: { code: 'server_error', message: 'Something broke' },
            },
          },
        ]),
      ),
    );
    const error = providerError(await run({ api: 'responses', baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: undefined });
    expect(error.message).toContain('Something broke');
    expect(server.requests).toHaveLength(1);
  });

  it('classifies a flat error event by code, or by message when the code is absent', async () => {
    const server = await serve((_request, response, index) =>
      sendSse(
        response,
        responsesSse([
          created,
          index === 0
            ? {
                type: 'error',
                sequence_number: 1,
                code: 'rate_limit_exceeded',
                message: 'Slow down',
                param: null,
              }
            : {
                type: 'error',
                sequence_number: 1,
                code: null,
                message: 'You exceeded your current quota.',
                param: null,
              },
        ]),
      ),
    );
    expect(providerError(await run({ api: 'responses', baseURL: server.url }))).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
    });
    expect(providerError(await run({ api: 'responses', baseURL: server.url }))).toMatchObject({
      kind: 'quota',
      retryable: false,
    });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a stream without response.completed as network', async () => {
    const server = await serve((_request, response) =>
      sendSse(response, responsesSse([created, callAdded])),
    );
    const error = providerError(await run({ api: 'responses', baseURL: server.url }));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toContain('ended without response.completed');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a reset inside function_call arguments as network, the call never ending', async () => {
    const server = await serve((_request, response) =>
      resetAfter(response, responsesSse([created, callAdded, argumentsDelta])),
    );
    const outcome = await run({ api: 'responses', baseURL: server.url });
    expect(providerError(outcome)).toMatchObject({ kind: 'network', retryable: true });
    expect(outcome.events.map((event) => event.type)).toEqual([
      'message-start',
      'tool-call-start',
      'tool-call-delta',
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('ends a response cut by max_output_tokens with stop max-tokens and the partial call as rawInput', async () => {
    const server = await serve((_request, response) =>
      sendSse(
        response,
        responsesSse([
          created,
          callAdded,
          argumentsDelta,
          {
            type: 'response.incomplete',
            sequence_number: 3,
            response: {
              ...created.response,
              status: 'incomplete',
              incomplete_details: { reason: 'max_output_tokens' },
              usage: {
                input_tokens: 10,
                output_tokens: 5,
                input_tokens_details: { cached_tokens: 4 },
              },
            },
          },
        ]),
      ),
    );
    const outcome = await run({ api: 'responses', baseURL: server.url });
    expect(outcome.error).toBeUndefined();
    const end = outcome.events.at(-1) as Extract<StreamEvent, { type: 'message-end' }>;
    expect(end.stopReason).toBe('max-tokens');
    expect(end.usage).toEqual({
      inputTokens: 6,
      outputTokens: 5,
      cacheReadTokens: 4,
      cacheWriteTokens: 0,
    });
    expect(end.message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'weather', input: {}, rawInput: '{"location":"Pa' },
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('ends promptly with CancelledError when the caller aborts mid-stream', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(responsesSse([created, callAdded]));
    });
    const controller = new AbortController();
    const outcome = await run(
      { api: 'responses', baseURL: server.url },
      { signal: controller.signal },
      (event) => {
        if (event.type === 'tool-call-start') setTimeout(() => controller.abort(), 10);
      },
    );
    expect(CancelledError.isInstance(outcome.error)).toBe(true);
    // Only the abort can end this call; 5 s leaves room for a loaded CI machine.
    expect(outcome.ms).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });
});
