import {
  type Message,
  type ModelRequest,
  type StreamEvent,
  type ToolSpec,
  toolResult,
} from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropic } from '../src/anthropic/index.js';
import { readFixture } from './fixtures.js';
import { type Loopback, sendSse, startLoopback } from './loopback-server.js';

// ToolRunner.json holds real request bodies (and non-streamed responses) recorded by the Anthropic
// SDK's tool runner. Our mapping must produce the same request shape from the same conversation.

type Json = Record<string, unknown>;
interface Recorded {
  readonly body: {
    model: string;
    max_tokens?: number;
    messages: { role: 'user' | 'assistant'; content: string | Json[] }[];
    tools?: { name: string; description?: string; input_schema: Json; type?: string }[];
  };
  readonly response: {
    id: string;
    model: string;
    content: Json[];
    stop_reason: string;
    usage: Json;
  };
}

const cassette = JSON.parse(readFixture('anthropic-sdk-typescript/ToolRunner.json')) as Recorded[];

/**
 * The recorded non-streamed response as the SSE events the API streams for it (derived, not
 * recorded: one delta per block), so the real SDK client parses it.
 */
function responseToSse(response: Recorded['response']): string {
  const events: Json[] = [
    {
      type: 'message_start',
      message: {
        ...response,
        content: [],
        stop_reason: null,
        usage: { ...response.usage, output_tokens: 1 },
      },
    },
  ];
  response.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: response.stop_reason, stop_sequence: null },
    usage: { output_tokens: response.usage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/**
 * The recorded body in the equivalent explicit form the adapter always sends: string content as
 * one text block, `type: 'custom'` (the default) dropped from tools, `stream` dropped.
 */
function normalize(body: Json): Json {
  const text = (content: unknown) =>
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  const messages = (body.messages as { role: string; content: unknown }[]).map((message) => ({
    role: message.role,
    content: (text(message.content) as Json[]).map((block) =>
      block.type === 'tool_result' ? { ...block, content: text(block.content) } : block,
    ),
  }));
  const tools = (body.tools as Json[] | undefined)?.map(({ type, ...tool }) =>
    type === 'custom' ? tool : { type, ...tool },
  );
  const { stream: _stream, ...rest } = body;
  return { ...rest, messages, ...(tools ? { tools } : {}) };
}

/** The vendor-neutral request for a recorded body's first user turn. */
function firstRequest(recorded: Recorded): ModelRequest {
  const [first] = recorded.body.messages;
  const tools: ToolSpec[] = (recorded.body.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.input_schema,
  }));
  const content = typeof first?.content === 'string' ? first.content : '';
  return {
    model: recorded.body.model,
    maxOutputTokens: recorded.body.max_tokens,
    messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: content }] }],
    tools,
  };
}

async function endOf(stream: AsyncIterable<StreamEvent>): Promise<Message> {
  let message: Message | undefined;
  for await (const event of stream) if (event.type === 'message-end') message = event.message;
  if (!message) throw new Error('no message-end');
  return message;
}

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('AnthropicProvider against the recorded ToolRunner requests', () => {
  it.each([
    [0, 1, ['Tool result']],
    [2, 3, ['Called with 1', 'Called with 2']],
  ])(
    'call %i and its follow-up %i match the recorded request shape',
    async (first, second, outputs) => {
      const [turn1, turn2] = [cassette[first], cassette[second]] as [Recorded, Recorded];
      server = await startLoopback((_request, response, index) =>
        sendSse(response, responseToSse((index === 0 ? turn1 : turn2).response)),
      );
      const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server.url, cache: false });
      const request = firstRequest(turn1);
      const assistant = await endOf(provider.stream(request));
      const uses = assistant.content.filter((block) => block.type === 'tool_use');
      const results: Message = {
        id: 'u2',
        role: 'user',
        content: uses.map((block, index) => toolResult(block.id, outputs[index] ?? '')),
      };
      await endOf(
        provider.stream({ ...request, messages: [...request.messages, assistant, results] }),
      );

      const sent = server.requests.map((recorded) => recorded.json as Json);
      expect(sent.map((body) => body.stream)).toEqual([true, true]);
      expect(normalize(sent[0] as Json)).toEqual(normalize(turn1.body));
      expect(normalize(sent[1] as Json)).toEqual(normalize(turn2.body));
    },
  );

  it('with caching on, differs from the recorded request only by cache_control breakpoints', async () => {
    const recorded = cassette[8] as Recorded;
    server = await startLoopback((_request, response) =>
      sendSse(response, responseToSse(recorded.response)),
    );
    const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: server.url });
    // Request 8 continues from a compaction summary: [summary], [text, tool_use], [tool_result].
    const [summary, assistant, results] = recorded.body.messages as unknown as [
      { content: Json[] },
      { content: Json[] },
      { content: Json[] },
    ];
    const summaryText = String(summary.content[0]?.text);
    const toolUse = assistant.content[1] as { id: string; name: string; input: unknown };
    const history: Message[] = [
      {
        id: 'summary',
        role: 'user',
        content: [{ type: 'text', text: summaryText }],
        meta: { cacheBreakpoint: true },
      },
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'text', text: String(assistant.content[0]?.text) },
          { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: toolUse.input },
        ],
      },
      {
        id: 'u2',
        role: 'user',
        content: [toolResult(toolUse.id, String(results.content[0]?.content))],
      },
    ];
    await endOf(provider.stream({ ...firstRequest(recorded), messages: history }));
    const sent = server.requests[0]?.json as Json;
    const ephemeral = { type: 'ephemeral' };
    expect((sent.messages as { content: Json[] }[])[0]?.content[0]?.cache_control).toEqual(
      ephemeral,
    );
    expect((sent.tools as Json[]).at(-1)?.cache_control).toEqual(ephemeral);
    const stripped = JSON.parse(JSON.stringify(sent), (key, value) =>
      key === 'cache_control' ? undefined : value,
    );
    expect(normalize(stripped)).toEqual(normalize(recorded.body));
  });
});
