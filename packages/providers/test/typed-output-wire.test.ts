import {
  type LoopOptions,
  OutputInvalidError,
  type ParseResult,
  type Provider,
  type RunResult,
  runLoop,
  type ToolSchema,
  userMessage,
} from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropic } from '../src/anthropic/index.js';
import { openai } from '../src/openai/index.js';
import { type Loopback, sendSse, startLoopback } from './loopback-server.js';

/**
 * Typed output end to end: the loop, the vendor SDK and a loopback server that streams answers in
 * the shape the vendors send them (chunk fields as in the recorded streams of src/__fixtures__).
 */

interface Answer {
  readonly city: string;
  readonly population: number;
}

const schema: ToolSchema<Answer> = {
  jsonSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, population: { type: 'integer' } },
    required: ['city', 'population'],
    additionalProperties: false,
  },
  parse(input: unknown): ParseResult<Answer> {
    const value = input as Partial<Answer> | null;
    if (typeof value?.city === 'string' && Number.isInteger(value.population))
      return { success: true, value: value as Answer };
    return { success: false, issues: ['expected { city: string, population: integer }'] };
  },
};

const answer = '{"city":"Paris","population":2100000}';
/** The answer split where a model's tokens might fall, including inside a string and a number. */
const pieces = ['{"ci', 'ty":"Pa', 'ris","popul', 'ation":21', '00000}'];

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(wires: readonly string[]): Promise<Loopback> {
  server = await startLoopback((_request, response, index) =>
    sendSse(response, wires[index] ?? wires.at(-1) ?? ''),
  );
  return server;
}

async function run(provider: Provider, extra: Partial<LoopOptions> = {}): Promise<RunResult> {
  const loop = runLoop({
    provider,
    model: 'gpt-4.1-mini',
    history: [userMessage('Largest city of France, as JSON?')],
    output: { schema, maxRetries: 1 },
    ...extra,
  });
  for (;;) {
    const next = await loop.next();
    if (next.done) return next.value;
  }
}

/** A JSON request body as the test reads it. */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field, as JSON.
type Wire = any;

const data = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const event = (payload: { type: string }): string => `event: ${payload.type}\n${data(payload)}`;

/** A Chat Completions stream: content (or refusal) deltas, a finish reason, usage, [DONE]. */
function chatStream(
  deltas: readonly Record<string, unknown>[],
  finish: 'stop' | 'length' | 'tool_calls',
): string {
  const chunk = (choice: Record<string, unknown>, usage: unknown = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1770933892,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: choice ? [{ index: 0, logprobs: null, finish_reason: null, ...choice }] : [],
    usage,
  });
  return [
    data(chunk({ delta: { role: 'assistant', content: '', refusal: null } })),
    ...deltas.map((delta) => data(chunk({ delta }))),
    data(chunk({ delta: {}, finish_reason: finish })),
    data({
      ...chunk({}),
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
    }),
    'data: [DONE]\n\n',
  ].join('');
}

/** An Anthropic Messages stream of one text block. */
function anthropicStream(texts: readonly string[], stopReason: string): string {
  return [
    event({
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    } as { type: string }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } as {
      type: string;
    }),
    ...texts.map((text) =>
      event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } as {
        type: string;
      }),
    ),
    event({ type: 'content_block_stop', index: 0 } as { type: string }),
    event({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 12 },
    } as { type: string }),
    event({ type: 'message_stop' }),
  ].join('');
}

/** A Responses stream of one message item (text or refusal), completed or incomplete. */
function responsesStream(
  texts: readonly string[],
  options: { refusal?: boolean; incomplete?: boolean } = {},
): string {
  const response = (status: string, output: unknown[]) => ({
    id: 'resp_1',
    object: 'response',
    model: 'gpt-4.1-mini-2025-04-14',
    status,
    output,
    incomplete_details: options.incomplete ? { reason: 'max_output_tokens' } : null,
    usage:
      status === 'in_progress'
        ? null
        : {
            input_tokens: 20,
            output_tokens: 12,
            total_tokens: 32,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
  });
  const full = texts.join('');
  const part = options.refusal
    ? { type: 'refusal', refusal: full }
    : { type: 'output_text', text: full, annotations: [] };
  const item = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [part],
  };
  const deltaType = options.refusal ? 'response.refusal.delta' : 'response.output_text.delta';
  const last = options.incomplete ? 'response.incomplete' : 'response.completed';
  return [
    event({ type: 'response.created', response: response('in_progress', []) } as { type: string }),
    event({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    } as { type: string }),
    ...texts.map((delta) =>
      event({ type: deltaType, item_id: 'msg_1', output_index: 0, content_index: 0, delta } as {
        type: string;
      }),
    ),
    ...(options.incomplete
      ? []
      : [event({ type: 'response.output_item.done', output_index: 0, item } as { type: string })]),
    event({
      type: last,
      response: response(options.incomplete ? 'incomplete' : 'completed', [item]),
    } as { type: string }),
  ].join('');
}

function outputFailure(result: RunResult): OutputInvalidError {
  expect(result.status).toBe('error');
  expect(OutputInvalidError.isInstance(result.error)).toBe(true);
  return result.error as OutputInvalidError;
}

describe('typed output over the OpenAI SDK (Chat Completions)', () => {
  const provider = (url: string, extra: object = {}) =>
    openai({ baseURL: `${url}/v1`, apiKey: 'k', nativeOutput: true, ...extra });

  it('sends a strict json_schema response_format and parses the streamed JSON', async () => {
    const loopback = await serve([
      chatStream(
        pieces.map((content) => ({ content })),
        'stop',
      ),
    ]);
    const result = await run(provider(loopback.url));
    expect(result.status).toBe('completed');
    expect(result.output).toEqual(JSON.parse(answer));
    const body = loopback.requests[0]?.json as Wire;
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema.additionalProperties).toBe(false);
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('ends with a refusal (delta.refusal) without asking again', async () => {
    const refusal = [{ refusal: "I'm sorry, " }, { refusal: 'I cannot help with that.' }];
    const loopback = await serve([chatStream(refusal, 'stop')]);
    const error = outputFailure(await run(provider(loopback.url)));
    expect(error.reason).toBe('refusal');
    expect(error.text).toBe("I'm sorry, I cannot help with that.");
    expect(loopback.requests).toHaveLength(1);
  });

  it('ends with max-tokens when the JSON is cut off mid-string (finish_reason length)', async () => {
    const cut = pieces.slice(0, 2).map((content) => ({ content }));
    const loopback = await serve([chatStream(cut, 'length')]);
    const error = outputFailure(await run(provider(loopback.url)));
    expect(error.reason).toBe('max-tokens');
    expect(error.text).toBe('{"city":"Pa');
  });

  it('asks an OpenAI-compatible server for a final tool call, then takes its arguments', async () => {
    const call = [
      {
        tool_calls: [
          {
            index: 0,
            id: 'call_1',
            type: 'function',
            function: { name: 'final_answer', arguments: '' },
          },
        ],
      },
      ...pieces.map((piece) => ({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
    ];
    const loopback = await serve([chatStream(call, 'tool_calls')]);
    // A custom baseURL defaults to no native form.
    const result = await run(openai({ baseURL: `${loopback.url}/v1`, apiKey: 'k' }));
    expect(result.status).toBe('completed');
    expect(result.output).toEqual(JSON.parse(answer));
    const body = loopback.requests[0]?.json as Wire;
    expect(body.tool_choice).toBe('required');
    expect(body.tools.map((tool: Wire) => tool.function.name)).toEqual(['final_answer']);
    expect(body).not.toHaveProperty('response_format');
  });
});

describe('typed output over the OpenAI SDK (Responses)', () => {
  const provider = (url: string) =>
    openai({ api: 'responses', baseURL: `${url}/v1`, apiKey: 'k', nativeOutput: true });

  it('sends text.format and parses the streamed JSON', async () => {
    const loopback = await serve([responsesStream(pieces)]);
    const result = await run(provider(loopback.url));
    expect(result.output).toEqual(JSON.parse(answer));
    const body = loopback.requests[0]?.json as Wire;
    expect(body.text.format).toMatchObject({
      type: 'json_schema',
      name: 'final_answer',
      strict: true,
    });
  });

  it('ends with a refusal, and with max-tokens on an incomplete response', async () => {
    let loopback = await serve([responsesStream(['No.'], { refusal: true })]);
    expect(outputFailure(await run(provider(loopback.url))).reason).toBe('refusal');
    await loopback.close();
    loopback = await serve([responsesStream(pieces.slice(0, 3), { incomplete: true })]);
    const error = outputFailure(await run(provider(loopback.url)));
    expect(error.reason).toBe('max-tokens');
    expect(error.text).toBe('{"city":"Paris","popul');
  });
});

describe('typed output over the Anthropic SDK', () => {
  const provider = (url: string) => anthropic({ baseURL: url, apiKey: 'k' });
  const model = { model: 'claude-sonnet-4-5' };

  it('sends output_config.format and parses the streamed JSON', async () => {
    const loopback = await serve([anthropicStream(pieces, 'end_turn')]);
    const result = await run(provider(loopback.url), model);
    expect(result.output).toEqual(JSON.parse(answer));
    const body = loopback.requests[0]?.json as Wire;
    expect(body.output_config.format.type).toBe('json_schema');
    expect(body.output_config.format.schema.required).toEqual(['city', 'population']);
  });

  it('sends a wrong answer back once and accepts the corrected one', async () => {
    const loopback = await serve([
      anthropicStream(['{"city":"Paris"}'], 'end_turn'),
      anthropicStream(pieces, 'end_turn'),
    ]);
    const result = await run(provider(loopback.url), model);
    expect(result.output).toEqual(JSON.parse(answer));
    expect(loopback.requests).toHaveLength(2);
    const second = loopback.requests[1]?.json as { messages: Wire[] };
    expect(JSON.stringify(second.messages.at(-1))).toContain('not valid final_answer output');
  });

  it('ends with refusal and with max-tokens cut mid-JSON', async () => {
    let loopback = await serve([anthropicStream(['I will not.'], 'refusal')]);
    expect(outputFailure(await run(provider(loopback.url), model)).reason).toBe('refusal');
    await loopback.close();
    loopback = await serve([anthropicStream(pieces.slice(0, 4), 'max_tokens')]);
    const error = outputFailure(await run(provider(loopback.url), model));
    expect(error.reason).toBe('max-tokens');
    expect(error.text).toBe('{"city":"Paris","population":21');
  });
});
