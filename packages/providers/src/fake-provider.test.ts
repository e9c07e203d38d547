import type { Message, ModelRequest, StreamEvent, ToolSpec } from '@mh/core';
import { collect } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { fake, fakeTurn, findArithmetic } from './fake-provider.js';

const calculatorSpec: ToolSpec = {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  inputSchema: {
    type: 'object',
    properties: { expression: { type: 'string' } },
    required: ['expression'],
  },
};
const listDirSpec: ToolSpec = {
  name: 'list_dir',
  description: 'Lists a folder.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
};
const readFileSpec: ToolSpec = {
  name: 'read_file',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function request(
  messages: Message[],
  tools: ToolSpec[] = [calculatorSpec, listDirSpec, readFileSpec],
): ModelRequest {
  return { model: 'fake', messages, tools };
}

const user = (text: string): Message => ({
  id: 'u1',
  role: 'user',
  content: [{ type: 'text', text }],
});

describe('findArithmetic', () => {
  it('finds a symbolic expression inside a question', () => {
    expect(findArithmetic('What is 6*7?')).toBe('6*7');
  });

  it('understands worded operators', () => {
    expect(findArithmetic('what is 12 divided by 4 plus 1')).toBe('12/4+1');
  });

  it('ignores numbers without an operator', () => {
    expect(findArithmetic('I have 3 apples')).toBeUndefined();
  });
});

describe('fakeTurn', () => {
  it('calls the calculator for arithmetic when it is offered', () => {
    expect(fakeTurn(request([user('What is 6*7?')])).toolCalls).toEqual([
      { name: 'calculator', input: { expression: '6*7' } },
    ]);
  });

  it('answers plainly when no calculator is offered', () => {
    const turn = fakeTurn(request([user('What is 6*7?')], []));
    expect(turn.toolCalls).toBeUndefined();
    expect(turn.text).toContain('6*7');
  });

  it('reads a named file when asked to show it', () => {
    expect(fakeTurn(request([user('Show me the contents of src/main.ts')])).toolCalls).toEqual([
      { name: 'read_file', input: { path: 'src/main.ts' } },
    ]);
  });

  it('lists the folder when asked about files', () => {
    expect(fakeTurn(request([user('Which files are here?')])).toolCalls?.[0]?.name).toBe(
      'list_dir',
    );
  });

  it('calls a tool named in the question with its key=value arguments typed by the schema', () => {
    const add: ToolSpec = {
      name: 'add',
      description: 'Adds.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    };
    expect(fakeTurn(request([user('Use add with a=2 and b=3')], [add])).toolCalls).toEqual([
      { name: 'add', input: { a: 2, b: 3 } },
    ]);
  });

  it('does not call a named tool whose required arguments are missing', () => {
    expect(fakeTurn(request([user('use the calculator for 6*7')])).toolCalls).toEqual([
      { name: 'calculator', input: { expression: '6*7' } },
    ]);
  });

  it('turns a calculator result into an answer', () => {
    const messages: Message[] = [
      user('What is 6*7?'),
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: 'calculator', input: { expression: '6*7' } }],
      },
      {
        id: 'u2',
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'c1',
            content: [{ type: 'text', text: '42' }],
            isError: false,
          },
        ],
      },
    ];
    expect(fakeTurn(request(messages)).text).toBe('The answer is 42.');
  });

  it('reports a tool error instead of inventing an answer', () => {
    const messages: Message[] = [
      user('What is 1/0?'),
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: 'calculator', input: { expression: '1/0' } }],
      },
      {
        id: 'u2',
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'c1',
            content: [{ type: 'text', text: 'Division by zero' }],
            isError: true,
          },
        ],
      },
    ];
    expect(fakeTurn(request(messages)).text).toBe('calculator reported an error: Division by zero');
  });
});

describe('FakeProvider', () => {
  it('streams message-start, deltas, usage and exactly one message-end last', async () => {
    const events = await collect(fake().stream(request([user('hello there')])));
    expect(events[0]?.type).toBe('message-start');
    expect(events.at(-1)?.type).toBe('message-end');
    expect(events.filter((event) => event.type === 'message-end')).toHaveLength(1);
    const text = events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
    const end = events.at(-1);
    expect(end?.type === 'message-end' && end.message.content).toEqual([{ type: 'text', text }]);
  });

  it('streams a tool call as start, argument fragments and end with the parsed input', async () => {
    const events = await collect(fake().stream(request([user('What is 6*7?')])));
    const json = events
      .map((event) => (event.type === 'tool-call-delta' ? event.json : ''))
      .join('');
    expect(JSON.parse(json)).toEqual({ expression: '6*7' });
    const end = events.find((event) => event.type === 'tool-call-end');
    expect(end?.type === 'tool-call-end' && end.input).toEqual({ expression: '6*7' });
    const last = events.at(-1);
    expect(last?.type === 'message-end' && last.stopReason).toBe('tool-use');
  });

  it('reports usage estimated from the request', async () => {
    const events = await collect(fake().stream(request([user('hello '.repeat(100))])));
    const last = events.at(-1);
    expect(last?.type === 'message-end' && last.usage.inputTokens).toBeGreaterThan(100);
  });

  it('stops streaming when its signal aborts', async () => {
    const controller = new AbortController();
    const stream = fake({ delayMs: 5 }).stream(request([user('hello')]), {
      signal: controller.signal,
    });
    const seen: StreamEvent[] = [];
    await expect(async () => {
      for await (const event of stream) {
        seen.push(event);
        controller.abort();
      }
    }).rejects.toThrow(/aborted/);
    expect(seen).toHaveLength(1);
  });

  it('rejects a negative delay with a ConfigError naming delayMs', () => {
    expect(() => fake({ delayMs: -1 })).toThrow(expect.objectContaining({ field: 'delayMs' }));
  });
});

describe('fake() as a summariser', () => {
  it('answers a summary request with an extractive summary that keeps identifiers', async () => {
    const { providerSummarizer } = await import('@mh/core');
    const summarizer = providerSummarizer(fake(), 'fake');
    const summary = await summarizer.summarize({
      instructions: 'Summarise.',
      messages: [
        {
          id: 'u1',
          role: 'user',
          content: [{ type: 'text', text: 'Find order ORD-4411 in data/orders.csv' }],
        },
        {
          id: 'a1',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'grep', input: { pattern: 'ORD-4411' } }],
        },
        {
          id: 'u2',
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: 't1',
              isError: false,
              content: [{ type: 'text', text: 'data/orders.csv:12: ORD-4411,paid,129.90' }],
            },
          ],
        },
      ],
    });
    expect(summary.text).toContain('Find order ORD-4411 in data/orders.csv');
    expect(summary.text).toContain('grep ×1');
    expect(summary.text).toContain('ORD-4411');
    expect(summary.text).toContain('data/orders.csv');
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
  });
});
