import { readFileSync } from 'node:fs';
import {
  type ContentBlock,
  type Message,
  type ModelRequest,
  type StreamEvent,
  type ToolSpec,
  toolResult,
  userMessage,
} from '@mh/core';
import { collect } from '@mh/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnthropicOptions, anthropic } from '../src/anthropic/index.js';
import { chunksToSse, readFixture } from './fixtures.js';
import { type Loopback, sendSse, startLoopback } from './loopback-server.js';

// Recorded streams replayed through the real @anthropic-ai/sdk client on a loopback server; then
// the next request is built from the resulting history and checked as the SDK sent it.

type MessageEnd = Extract<StreamEvent, { type: 'message-end' }>;
type Body = {
  model: string;
  max_tokens: number;
  stream: boolean;
  messages: { role: string; content: Record<string, unknown>[] }[];
  system?: unknown;
  tools?: unknown[];
  thinking?: unknown;
};

const vercel = (name: string): string =>
  chunksToSse(readFixture(`vercel-ai/${name}`), { eventLines: true })[0] ?? '';
const ownFixture = (name: string): string =>
  readFileSync(new URL(`../src/anthropic/__fixtures__/${name}`, import.meta.url), 'utf8');
const sdkWire = (name: string): string => readFixture(`anthropic-sdk-typescript/${name}`);

/** A short, valid reply for the follow-up request. */
const REPLY = chunksToSse(
  [
    '{"type":"message_start","message":{"id":"msg_reply","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}',
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}',
    '{"type":"content_block_stop","index":0}',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}',
    '{"type":"message_stop"}',
  ].join('\n'),
  { eventLines: true },
)[0] as string;

const TOOLS: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { location: { type: 'string' } } },
  },
];

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves `wire` to the first request and REPLY to every later one. */
async function serve(wire: string): Promise<Loopback> {
  server = await startLoopback((_request, response, index) =>
    sendSse(response, index === 0 ? wire : REPLY),
  );
  return server;
}

function endOf(events: readonly StreamEvent[]): MessageEnd {
  const ends = events.filter((event): event is MessageEnd => event.type === 'message-end');
  expect(ends).toHaveLength(1);
  expect(events.at(-1)).toBe(ends[0]);
  return ends[0] as MessageEnd;
}

const deltas = (events: readonly StreamEvent[], type: 'text-delta' | 'thinking-delta'): string =>
  events.map((event) => (event.type === type ? event.text : '')).join('');

/**
 * Asserts the rules the Messages API enforces on a request body: alternating roles starting with
 * the user, non-empty content and text, signed thinking, every tool_use answered first thing in
 * the next user message, at most 4 cache breakpoints, no sampling parameters (API 2026-10-21).
 */
function expectAcceptable(body: Body): void {
  expect(body.messages[0]?.role).toBe('user');
  let breakpoints = 0;
  body.messages.forEach((message, index) => {
    if (index > 0) expect(message.role).not.toBe(body.messages[index - 1]?.role);
    expect(message.content.length).toBeGreaterThan(0);
    for (const block of message.content) {
      if (block.cache_control) breakpoints++;
      if (block.type === 'text') expect(block.text).not.toBe('');
      if (block.type === 'thinking') expect(typeof block.signature).toBe('string');
    }
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (message.role === 'assistant' && uses.length > 0) {
      const next = body.messages[index + 1]?.content ?? [];
      const answered = next.slice(0, uses.length).map((block) => block.tool_use_id);
      expect(answered).toEqual(uses.map((block) => block.id));
    }
  });
  expect(breakpoints).toBeLessThanOrEqual(4);
  // What the caller set is sent as given (the request in replay() sets 0.3).
  expect(body).toHaveProperty('temperature', 0.3);
}

interface Replayed {
  readonly events: StreamEvent[];
  readonly end: MessageEnd;
  /** The body the SDK sent for the follow-up request. */
  readonly next: Body;
}

/** Streams a fixture, then sends `follow(assistant)` as the next turn and returns both sides. */
async function replay(
  wire: string,
  follow: (assistant: Message) => Message,
  options: AnthropicOptions = {},
): Promise<Replayed> {
  const loopback = await serve(wire);
  const provider = anthropic({ apiKey: 'sk-ant-test', baseURL: loopback.url, ...options });
  const first: ModelRequest = {
    model: 'claude-sonnet-4-5',
    system: 'You are a test.',
    messages: [userMessage('Go', 'u1')],
    tools: TOOLS,
    temperature: 0.3,
  };
  const events = await collect(provider.stream(first));
  const end = endOf(events);
  const history = [...first.messages, end.message, follow(end.message)];
  const nextEvents = await collect(provider.stream({ ...first, messages: history }));
  expect(endOf(nextEvents).message.content).toEqual([{ type: 'text', text: 'Done.' }]);
  expect(loopback.requests).toHaveLength(2);
  const [sent, next] = loopback.requests.map((request) => request.json as Body);
  expect(loopback.requests[0]?.url).toBe('/v1/messages');
  expect(sent).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 8192, stream: true });
  expectAcceptable(sent as Body);
  expectAcceptable(next as Body);
  return { events, end, next: next as Body };
}

/** A user message answering every tool call of `assistant`. */
const answerTools = (assistant: Message): Message => ({
  id: 'u2',
  role: 'user',
  content: assistant.content
    .filter((block) => block.type === 'tool_use')
    .map((block) =>
      block.rawInput === undefined
        ? toolResult(block.id, 'ok')
        : toolResult(block.id, 'The arguments were not valid JSON', true),
    ),
});

const toolUses = (content: readonly ContentBlock[]) =>
  content.filter((block) => block.type === 'tool_use');

describe('AnthropicProvider on recorded streams', () => {
  it('vercel-ai anthropic-text: assembles the text, usage and stop reason', async () => {
    const { events, end, next } = await replay(vercel('anthropic-text.chunks.txt'), () =>
      userMessage('Thanks', 'u2'),
    );
    const text =
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?";
    expect(events[0]).toEqual({
      type: 'message-start',
      id: 'msg_01QC4g3HwBThD4BaNtBckFDJ',
      model: 'claude-sonnet-4-5-20250929',
    });
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(6);
    expect(deltas(events, 'text-delta')).toBe(text);
    expect(end).toMatchObject({
      stopReason: 'end',
      model: 'claude-sonnet-4-5-20250929',
      usage: { inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(events.filter((event) => event.type === 'usage').at(-1)).toEqual({
      type: 'usage',
      usage: end.usage,
    });
    expect(end.message).toEqual({
      id: 'msg_01QC4g3HwBThD4BaNtBckFDJ',
      role: 'assistant',
      content: [{ type: 'text', text }],
    });
    expect(next.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text }] });
    expect(next.system).toEqual([
      { type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('vercel-ai anthropic-json-tool.1: parses the fragmented arguments, ids round-trip', async () => {
    const { events, end, next } = await replay(
      vercel('anthropic-json-tool.1.chunks.txt'),
      answerTools,
    );
    const input = {
      elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }],
    };
    const id = 'toolu_01KFbKqPYSuAKujiL6mTfzYA';
    expect(events.filter((event) => event.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', id, name: 'json' },
      {
        type: 'tool-call-delta',
        id,
        json: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]',
      },
      { type: 'tool-call-delta', id, json: '}' },
      { type: 'tool-call-end', id, name: 'json', input },
    ]);
    expect(end).toMatchObject({
      stopReason: 'tool-use',
      usage: { inputTokens: 849, outputTokens: 47 },
    });
    expect(end.message.content).toEqual([{ type: 'tool_use', id, name: 'json', input }]);
    expect(next.messages[1]?.content).toEqual([{ type: 'tool_use', id, name: 'json', input }]);
    // The newest block carries the moving cache breakpoint.
    expect(next.messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: id,
        content: [{ type: 'text', text: 'ok' }],
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('vercel-ai anthropic-tool-no-args: an empty argument string becomes {}', async () => {
    const { events, end, next } = await replay(
      vercel('anthropic-tool-no-args.chunks.txt'),
      answerTools,
    );
    expect(deltas(events, 'text-delta')).toBe("I'll update the issue list for you.");
    expect(events.filter((event) => event.type === 'tool-call-delta')).toHaveLength(0);
    expect(toolUses(end.message.content)).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP',
        name: 'updateIssueList',
        input: {},
      },
    ]);
    expect(end).toMatchObject({
      stopReason: 'tool-use',
      usage: { inputTokens: 565, outputTokens: 48 },
    });
    expect(next.messages[1]?.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP',
      name: 'updateIssueList',
      input: {},
    });
  });

  it('vercel-ai anthropic-web-search-tool.1: server tool blocks pass through and go back', async () => {
    const { events, end, next } = await replay(
      vercel('anthropic-web-search-tool.1.chunks.txt'),
      () => userMessage('Thanks', 'u2'),
    );
    expect(events.some((event) => event.type.startsWith('tool-call'))).toBe(false);
    const [call, result, ...rest] = end.message.content;
    expect(call).toEqual({
      type: 'provider',
      provider: 'anthropic',
      data: {
        type: 'server_tool_use',
        id: 'srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k',
        name: 'web_search',
        input: { query: 'tech news today September 26 2025' },
      },
    });
    expect(result).toMatchObject({
      type: 'provider',
      provider: 'anthropic',
      data: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k' },
    });
    expect(rest.every((block) => block.type === 'text')).toBe(true);
    const text = deltas(events, 'text-delta');
    expect(text).toContain('Apple');
    expect(text.endsWith('retail expansion.')).toBe(true);
    expect(end).toMatchObject({
      stopReason: 'end',
      usage: { inputTokens: 15665, outputTokens: 795 },
    });
    const sentBack = next.messages[1]?.content ?? [];
    expect(sentBack[0]).toEqual(call?.type === 'provider' ? call.data : undefined);
    expect(sentBack[1]).toEqual(result?.type === 'provider' ? result.data : undefined);
    expect(
      sentBack
        .slice(2)
        .map((block) => block.text)
        .join(''),
    ).toBe(text);
  });

  it('anthropic-sdk-typescript tool_use_response.txt: text, then a tool call split mid-key', async () => {
    const { events, end, next } = await replay(sdkWire('tool_use_response.txt'), answerTools);
    expect(deltas(events, 'text-delta')).toBe("I'll check the current weather in Paris for you.");
    expect(
      events.filter((event) => event.type === 'tool-call-delta').map((event) => event.json),
    ).toEqual(['{"locati', 'on": "P', 'ar', 'is"}']);
    expect(end.message.content).toEqual([
      { type: 'text', text: "I'll check the current weather in Paris for you." },
      {
        type: 'tool_use',
        id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        name: 'get_weather',
        input: { location: 'Paris' },
      },
    ]);
    expect(end).toMatchObject({
      stopReason: 'tool-use',
      usage: { inputTokens: 377, outputTokens: 65 },
    });
    expect(next.messages[2]?.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
    });
  });

  it('anthropic-sdk-typescript incomplete_partial_json_response.txt: max_tokens inside tool JSON', async () => {
    const { events, end, next } = await replay(
      sdkWire('incomplete_partial_json_response.txt'),
      answerTools,
    );
    const raw =
      '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes';
    expect(end.stopReason).toBe('max-tokens');
    expect(end.usage).toMatchObject({ inputTokens: 450, outputTokens: 124 });
    expect(toolUses(end.message.content)).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
        name: 'make_file',
        input: {},
        rawInput: raw,
      },
    ]);
    expect(events).toContainEqual({
      type: 'tool-call-end',
      id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
      name: 'make_file',
      input: {},
    });
    expect(next.messages[1]?.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
      name: 'make_file',
      input: {},
    });
    expect(next.messages[2]?.content[0]).toMatchObject({ is_error: true });
  });

  it('vercel-ai anthropic-clear-thinking.1: thinking goes back with its signature unchanged', async () => {
    const wire = ownFixture('vercel-ai/anthropic-clear-thinking.1.chunks.txt');
    const signature = wire.match(/"signature_delta","signature":"([^"]+)"/)?.[1];
    expect(signature).toMatch(/^EvQBCkYICxgCKkAx/);
    const { events, end, next } = await replay(
      chunksToSse(wire, { eventLines: true })[0] as string,
      () => userMessage('And times 2?', 'u2'),
      { thinking: { budgetTokens: 2048 } },
    );
    const thinking =
      'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185';
    expect(deltas(events, 'thinking-delta')).toBe(thinking);
    expect(end.message.content).toEqual([
      { type: 'thinking', thinking, signature },
      { type: 'text', text: '925 ÷ 5 = 185' },
    ]);
    expect(end).toMatchObject({ stopReason: 'end', usage: { inputTokens: 69, outputTokens: 53 } });
    expect(next.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(next.messages[1]?.content[0]).toEqual({ type: 'thinking', thinking, signature });
  });
});
