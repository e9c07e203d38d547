import {
  type Message,
  type ModelRequest,
  ProviderError,
  type StreamEvent,
  type ToolSpec,
  toolResult,
  userMessage,
} from '@mh/core';
import { collect } from '@mh/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { openai } from '../src/openai/index.js';
import { chunksToSse, readFixture } from './fixtures.js';
import { type Loopback, sendSse, startLoopback } from './loopback-server.js';

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves the i-th wire body to the i-th request. */
async function serve(wires: readonly string[]): Promise<Loopback> {
  server = await startLoopback((_request, response, index) =>
    sendSse(response, wires[index] ?? wires.at(-1) ?? ''),
  );
  return server;
}

type End = Extract<StreamEvent, { type: 'message-end' }>;

function endOf(events: readonly StreamEvent[]): End {
  const ends = events.filter((event): event is End => event.type === 'message-end');
  expect(ends).toHaveLength(1);
  expect(events.at(-1)).toBe(ends[0]);
  return ends[0] as End;
}

function joined(events: readonly StreamEvent[], type: 'text-delta' | 'thinking-delta'): string {
  return events
    .filter((event): event is Extract<StreamEvent, { type: typeof type }> => event.type === type)
    .map((event) => event.text)
    .join('');
}

function fixtureLines(name: string): Record<string, unknown>[] {
  return readFixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const weather: ToolSpec = {
  name: 'weather',
  description: 'Current weather at a location',
  inputSchema: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};

const calculator: ToolSpec = {
  name: 'calculator',
  description: 'a op b',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' }, op: { type: 'string' } },
    required: ['a', 'b', 'op'],
  },
};

interface ChatBodyMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  reasoning_content?: string;
}

/** Chat's pairing rule: each tool call answered by a `tool` message before the next turn. */
function expectChatPairing(messages: readonly ChatBodyMessage[]): void {
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      const answers = [];
      for (const next of messages.slice(index + 1)) {
        if (next.role !== 'tool') break;
        if (next.tool_call_id === call.id) answers.push(next);
      }
      expect(answers, `answer to ${call.id}`).toHaveLength(1);
      expect(() => JSON.parse(call.function.arguments)).not.toThrow();
    }
    if (message.role === 'tool') {
      const calls = messages.slice(0, index).flatMap((before) => before.tool_calls ?? []);
      expect(calls.map((call) => call.id)).toContain(message.tool_call_id);
    }
  });
}

interface ResponsesItem {
  type?: string;
  role?: string;
  id?: string;
  call_id?: string;
  encrypted_content?: string;
  summary?: unknown[];
}

/** Responses' rules: outputs follow their call (`call_id`), reasoning items are replayable. */
function expectResponsesPairing(input: readonly ResponsesItem[]): void {
  input.forEach((item, index) => {
    if (item.type === 'function_call_output') {
      const calls = input.slice(0, index).filter((before) => before.type === 'function_call');
      expect(calls.map((call) => call.call_id)).toContain(item.call_id);
    }
    if (item.type === 'function_call') {
      const outputs = input.filter(
        (after) => after.type === 'function_call_output' && after.call_id === item.call_id,
      );
      expect(outputs, `output for ${item.call_id}`).toHaveLength(1);
    }
    if (item.type === 'reasoning') {
      expect(item.id).toMatch(/^rs_/);
      expect(item.encrypted_content?.length).toBeGreaterThan(0);
      expect(input[index + 1]?.type).not.toBe('reasoning');
    }
  });
}

describe('openai chat fixtures (Chat Completions through the real SDK)', () => {
  it('assembles openai-text, ends on [DONE] and replays the assistant text', async () => {
    const name = 'vercel-ai/openai-text.chunks.txt';
    const loopback = await serve(chunksToSse(readFixture(name), { done: true }));
    const provider = openai({ baseURL: loopback.url, apiKey: 'test-key' });
    const request: ModelRequest = {
      model: 'gpt-4.1-nano',
      system: 'Be brief.',
      messages: [userMessage('Invent a holiday', 'm1')],
      tools: [],
      maxOutputTokens: 400,
      temperature: 0.3,
      stopSequences: ['END'],
    };
    const events = await collect(provider.stream(request));
    const contents = fixtureLines(name)
      .flatMap((chunk) => (chunk.choices as { delta: { content?: string } }[]) ?? [])
      .map((choice) => choice.delta.content ?? '')
      .filter((content) => content !== '');
    const expected = contents.join('');
    expect(events[0]).toEqual({
      type: 'message-start',
      id: 'chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0',
      model: 'gpt-4.1-nano-2025-04-14',
    });
    expect(contents).toHaveLength(300);
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(300);
    expect(joined(events, 'text-delta')).toBe(expected);
    const end = endOf(events);
    expect(end.stopReason).toBe('end');
    expect(end.usage).toEqual({
      inputTokens: 16,
      outputTokens: 300,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(end.message.content).toEqual([{ type: 'text', text: expected }]);

    const sent = loopback.requests[0];
    expect(sent?.url).toBe('/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer test-key');
    expect(sent?.json).toEqual({
      model: 'gpt-4.1-nano',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Invent a holiday' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 400,
      temperature: 0.3,
      stop: ['END'],
    });

    await collect(
      provider.stream({
        ...request,
        messages: [...request.messages, end.message, userMessage('Another one', 'm3')],
      }),
    );
    const next = loopback.requests[1]?.json as { messages: ChatBodyMessage[] };
    expect(next.messages.slice(2)).toEqual([
      { role: 'assistant', content: expected },
      { role: 'user', content: 'Another one' },
    ]);
    expect(loopback.requests).toHaveLength(2);
  });

  it('parses deepseek-tool-call: reasoning, one fragmented tool call, usage on the finish chunk', async () => {
    const name = 'vercel-ai/deepseek-tool-call.chunks.txt';
    const loopback = await serve(chunksToSse(readFixture(name), { done: true }));
    const provider = openai({ baseURL: loopback.url, name: 'deepseek' });
    const request: ModelRequest = {
      model: 'deepseek-reasoner',
      messages: [userMessage('What is the weather in San Francisco?', 'u1')],
      tools: [weather],
    };
    const events = await collect(provider.stream(request));
    const thinking = fixtureLines(name)
      .map((chunk) => (chunk.choices as { delta: { reasoning_content?: string } }[])[0])
      .map((choice) => choice?.delta.reasoning_content ?? '')
      .join('');
    expect(thinking).toContain('San Francisco');
    expect(joined(events, 'thinking-delta')).toBe(thinking);
    expect(joined(events, 'text-delta')).toBe('');
    const id = 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF';
    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', id, name: 'weather' },
    ]);
    const json = events
      .filter((event) => event.type === 'tool-call-delta')
      .map((event) => (event.type === 'tool-call-delta' ? event.json : ''))
      .join('');
    expect(json).toBe('{"location": "San Francisco"}');
    expect(events.filter((event) => event.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', id, name: 'weather', input: { location: 'San Francisco' } },
    ]);
    const end = endOf(events);
    expect(end.stopReason).toBe('tool-use');
    expect(end.model).toBe('deepseek-reasoner');
    expect(end.usage).toEqual({
      inputTokens: 19,
      outputTokens: 83,
      cacheReadTokens: 320,
      cacheWriteTokens: 0,
    });
    expect(end.message.content).toEqual([
      { type: 'thinking', thinking },
      { type: 'tool_use', id, name: 'weather', input: { location: 'San Francisco' } },
    ]);

    const history: Message[] = [
      ...request.messages,
      end.message,
      { id: 'u2', role: 'user', content: [toolResult(id, 'Sunny, 18°C')] },
    ];
    await collect(provider.stream({ ...request, messages: history }));
    const next = loopback.requests[1]?.json as { messages: ChatBodyMessage[]; tools: unknown[] };
    expect(next.messages).toEqual([
      { role: 'user', content: 'What is the weather in San Francisco?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
          },
        ],
        reasoning_content: thinking,
      },
      { role: 'tool', tool_call_id: id, content: 'Sunny, 18°C' },
    ]);
    expect(next.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'weather',
          description: weather.description,
          parameters: weather.inputSchema,
        },
      },
    ]);
    expectChatPairing(next.messages);
  });

  it('parses alibaba-tool-call despite the Qwen quirks (id "", repeated type, empty delta)', async () => {
    const loopback = await serve(
      chunksToSse(readFixture('vercel-ai/alibaba-tool-call.chunks.txt'), { done: true }),
    );
    const provider = openai({ baseURL: loopback.url, name: 'qwen' });
    const request: ModelRequest = {
      model: 'qwen3-max',
      messages: [userMessage('Weather in SF?', 'u1')],
      tools: [weather],
    };
    const events = await collect(provider.stream(request));
    const id = 'call_eee11723464a4b9eb8cee71d';
    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', id, name: 'weather' },
    ]);
    expect(events.filter((event) => event.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', id, name: 'weather', input: { location: 'San Francisco' } },
    ]);
    const end = endOf(events);
    expect(end.stopReason).toBe('tool-use');
    expect(end.usage).toEqual({
      inputTokens: 295,
      outputTokens: 22,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(end.message.content).toEqual([
      { type: 'tool_use', id, name: 'weather', input: { location: 'San Francisco' } },
    ]);
    await collect(
      provider.stream({
        ...request,
        messages: [
          ...request.messages,
          end.message,
          { id: 'u2', role: 'user', content: [toolResult(id, '18°C')] },
        ],
      }),
    );
    const next = loopback.requests[1]?.json as { messages: ChatBodyMessage[] };
    expect(next.messages[1]?.tool_calls?.[0]?.id).toBe(id);
    expect(next.messages[2]).toEqual({ role: 'tool', tool_call_id: id, content: '18°C' });
    expectChatPairing(next.messages);
  });
});

describe('openai responses fixtures (Responses API through the real SDK)', () => {
  it('runs the four-response tool loop of openai-reasoning-encrypted-content.1 and sends reasoning back', async () => {
    const name = 'vercel-ai/openai-reasoning-encrypted-content.1.chunks.txt';
    const wires = chunksToSse(readFixture(name), {
      startType: 'response.created',
      eventLines: true,
    });
    expect(wires).toHaveLength(4);
    const loopback = await serve(wires);
    const provider = openai({
      api: 'responses',
      baseURL: loopback.url,
      apiKey: 'k',
      reasoningEffort: 'high',
    });
    const doneItems = fixtureLines(name)
      .filter((event) => event.type === 'response.output_item.done')
      .map((event) => event.item as { type: string; id: string; encrypted_content?: string });
    const encrypted = doneItems.find((item) => item.type === 'reasoning')?.encrypted_content;

    const history: Message[] = [userMessage('Compute ((12 + 7) * 3) * 10 step by step.', 'u0')];
    const expectedCalls = [
      { id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', input: { a: 12, b: 7, op: 'add' }, result: '19' },
      { id: 'call_Q6pW65MUgW9vF59BmItYGos3', input: { a: 19, b: 3, op: 'multiply' }, result: '57' },
      {
        id: 'call_Zl5vIMnD7dVAjgU6FkhmiCZh',
        input: { a: 57, b: 10, op: 'multiply' },
        result: '570',
      },
    ];
    const usages = [
      [134, 28],
      [221, 26],
      [260, 26],
      [299, 12],
    ];
    for (const [turn, [input, output]] of usages.entries()) {
      const events = await collect(
        provider.stream({ model: 'gpt-5.1-codex-max', messages: history, tools: [calculator] }),
      );
      const end = endOf(events);
      expect(end.usage).toEqual({
        inputTokens: input,
        outputTokens: output,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
      expect(end.model).toBe('gpt-5.1-codex-max');
      const call = expectedCalls[turn];
      if (call) {
        expect(end.stopReason).toBe('tool-use');
        expect(events.filter((event) => event.type === 'tool-call-end')).toEqual([
          { type: 'tool-call-end', id: call.id, name: 'calculator', input: call.input },
        ]);
        expect(end.message.content.at(-1)).toEqual({
          type: 'tool_use',
          id: call.id,
          name: 'calculator',
          input: call.input,
        });
        history.push(end.message, {
          id: `r${turn}`,
          role: 'user',
          content: [toolResult(call.id, call.result)],
        });
      } else {
        expect(end.stopReason).toBe('end');
        expect(joined(events, 'text-delta')).toBe('The final result is **570**.');
        expect(end.message.content).toEqual([
          { type: 'text', text: 'The final result is **570**.' },
        ]);
      }
      if (turn === 0) {
        const thinking = joined(events, 'thinking-delta');
        expect(thinking).toMatch(/^\*\*Calculating step-by-step/);
        expect(end.message.content[0]).toEqual({
          type: 'thinking',
          thinking,
          signature: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
          redacted: encrypted,
        });
      }
    }

    expect(loopback.requests).toHaveLength(4);
    const first = loopback.requests[0]?.json as Record<string, unknown>;
    expect(first).toMatchObject({
      model: 'gpt-5.1-codex-max',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high', summary: 'auto' },
      tools: [
        {
          type: 'function',
          name: 'calculator',
          description: 'a op b',
          parameters: calculator.inputSchema,
          strict: false,
        },
      ],
    });
    const last = loopback.requests[3]?.json as { input: ResponsesItem[] };
    expect(last.input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
      'function_call',
      'function_call_output',
    ]);
    expect(last.input[1]).toEqual({
      type: 'reasoning',
      id: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
      summary: [{ type: 'summary_text', text: expect.stringMatching(/^\*\*Calculating/) }],
      encrypted_content: encrypted,
    });
    expect(last.input[2]).toEqual({
      type: 'function_call',
      call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
      name: 'calculator',
      arguments: '{"a":12,"b":7,"op":"add"}',
    });
    expect(last.input[3]).toEqual({
      type: 'function_call_output',
      call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
      output: '19',
    });
    expectResponsesPairing(last.input);
  });

  it('keeps hosted web_search_call items of openai-web-search-tool.1 as provider blocks, never tool calls', async () => {
    const name = 'vercel-ai/openai-web-search-tool.1.chunks.txt';
    const loopback = await serve(
      chunksToSse(readFixture(name), { startType: 'response.created', eventLines: true }),
    );
    const provider = openai({ api: 'responses', baseURL: loopback.url, apiKey: 'k' });
    const request: ModelRequest = {
      model: 'gpt-5-mini',
      messages: [userMessage('Tech news today mentioning vercel?', 'u1')],
      tools: [],
    };
    const events = await collect(provider.stream(request));
    expect(events.some((event) => event.type.startsWith('tool-call'))).toBe(false);
    const finalText = fixtureLines(name).find((event) => event.type === 'response.output_text.done')
      ?.text as string;
    expect(joined(events, 'text-delta')).toBe(finalText);
    const end = endOf(events);
    expect(end.stopReason).toBe('end');
    expect(end.usage).toEqual({
      inputTokens: 31073 - 3712,
      outputTokens: 4416,
      cacheReadTokens: 3712,
      cacheWriteTokens: 0,
    });
    const kinds = end.message.content.map((block) =>
      block.type === 'provider' ? `provider:${(block.data as { type: string }).type}` : block.type,
    );
    expect(kinds).toEqual([...Array(6).fill('provider:web_search_call'), 'text']);
    expect(end.message.content.at(-1)).toEqual({ type: 'text', text: finalText });

    await collect(
      provider.stream({
        ...request,
        messages: [...request.messages, end.message, userMessage('Thanks', 'u2')],
      }),
    );
    const next = loopback.requests[1]?.json as { input: (ResponsesItem & { action?: unknown })[] };
    expect(next.input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      ...Array(6).fill('web_search_call'),
      'assistant',
      'user',
    ]);
    expect(next.input[1]).toEqual(
      (end.message.content[0] as { data: unknown }).data as Record<string, unknown>,
    );
    expect(next.input.filter((item) => item.type === 'reasoning')).toEqual([]);
    expectResponsesPairing(next.input);
  });

  it('turns the insufficient_quota error after HTTP 200 in openai-error.1 into a quota ProviderError', async () => {
    const loopback = await serve(
      chunksToSse(readFixture('vercel-ai/openai-error.1.chunks.txt'), {
        startType: 'response.created',
        eventLines: true,
      }),
    );
    const provider = openai({ api: 'responses', baseURL: loopback.url, apiKey: 'k' });
    const events: StreamEvent[] = [];
    const failure = await (async () => {
      for await (const event of provider.stream({
        model: 'gpt-5-nano',
        messages: [userMessage('hi', 'u1')],
        tools: [],
      })) {
        events.push(event);
      }
    })().catch((error: unknown) => error);
    expect(ProviderError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      kind: 'quota',
      retryable: false,
      provider: 'openai',
      status: undefined,
    });
    expect((failure as Error).message).toMatch(/exceeded your current quota/);
    expect(events.map((event) => event.type)).toEqual(['message-start']);
    expect(loopback.requests).toHaveLength(1);
  });
});
