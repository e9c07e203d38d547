import {
  InMemoryTracer,
  type Message,
  type ModelRequest,
  type Provider,
  runLoop,
  type StreamEvent,
  toolResultsOf,
  toolResultText,
  userMessage,
  ZERO_USAGE,
} from '@mh/core';
import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../src/calculator-tool.js';
import { PolicyToolExecutor } from '../src/policy-tool-executor.js';
import { HOSTILE_THROWS, throwingTool } from './hostile-throws.js';

/** Answers turn 1 with two tool calls and turn 2 with text, recording each request. */
function twoTurnProvider(requests: ModelRequest[]): Provider {
  const turns: Message['content'][] = [
    [
      { type: 'tool_use', id: 'c1', name: 'calculator', input: { expression: '6 * 7' } },
      { type: 'tool_use', id: 'c2', name: 'write_file', input: { path: 'x' } },
    ],
    [{ type: 'text', text: 'The answer is 42.' }],
  ];
  return {
    name: 'two-turn',
    async *stream(request): AsyncGenerator<StreamEvent> {
      requests.push(request);
      const content = turns[requests.length - 1] ?? [];
      const message: Message = { id: `m${requests.length}`, role: 'assistant', content };
      yield { type: 'message-start' };
      yield {
        type: 'message-end',
        stopReason: requests.length === 1 ? 'tool-use' : 'end',
        message,
        usage: ZERO_USAGE,
      };
    },
  };
}

describe('PolicyToolExecutor in the core loop', () => {
  it('advertises its tools and answers every call of a turn', async () => {
    const requests: ModelRequest[] = [];
    const loop = runLoop({
      provider: twoTurnProvider(requests),
      model: 'test-model',
      history: [userMessage('What is 6 times 7?')],
      tools: new PolicyToolExecutor({ tools: [calculatorTool()] }),
    });
    let next = await loop.next();
    while (!next.done) next = await loop.next();
    const result = next.value;
    expect(result.status).toBe('completed');
    expect(requests[0]?.tools.map((tool) => tool.name)).toEqual(['calculator']);
    const answers = toolResultsOf(requests[1]?.messages.at(-1) as Message);
    expect(answers.map((answer) => [answer.toolUseId, toolResultText(answer)])).toEqual([
      ['c1', '42'],
      ['c2', 'Unknown tool: write_file. Available tools: calculator'],
    ]);
  });

  for (const [label, make] of HOSTILE_THROWS) {
    it(`completes a run whose tool throws ${label}, answering the call with an isError result`, async () => {
      const provider: Provider = {
        name: 'calls-boom',
        async *stream(request): AsyncGenerator<StreamEvent> {
          const first = request.messages.length === 1;
          const content: Message['content'] = first
            ? [{ type: 'tool_use', id: 'c1', name: 'boom', input: {} }]
            : [{ type: 'text', text: 'noted' }];
          yield { type: 'message-start' };
          yield {
            type: 'message-end',
            stopReason: first ? 'tool-use' : 'end',
            message: { id: first ? 'm1' : 'm2', role: 'assistant', content },
            usage: ZERO_USAGE,
          };
        },
      };
      const loop = runLoop({
        provider,
        model: 'test-model',
        history: [userMessage('go')],
        tools: new PolicyToolExecutor({ tools: [throwingTool(make)] }),
        tracer: new InMemoryTracer(),
      });
      let next = await loop.next();
      while (!next.done) next = await loop.next();
      const result = next.value;
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('completed');
      const [answer] = toolResultsOf(result.messages[2] as Message);
      expect(answer?.isError).toBe(true);
      expect(toolResultText(answer as NonNullable<typeof answer>)).toMatch(/\S/);
    });
  }
});
