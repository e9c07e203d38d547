import { validateHistory } from '@mh/core';
import { fake, scripted } from '@mh/providers';
import { calculatorTool, defineTool } from '@mh/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.js';

const writeNote = (log: string[]) =>
  defineTool({
    name: 'write_note',
    description: 'Writes a note.',
    permission: 'write',
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      log.push(text);
      return 'written';
    },
  });

describe('Agent.run', () => {
  it('answers 42 through the calculator with the fake model', async () => {
    const agent = new Agent({ provider: fake(), model: 'fake', tools: [calculatorTool()] });
    const result = await agent.run('What is 6*7?');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('The answer is 42.');
    expect(result.turns).toBe(2);
    expect(agent.history).toHaveLength(4);
    expect(validateHistory(agent.history)).toEqual([]);
  });

  it('continues the same conversation on the next run', async () => {
    const provider = scripted([{ text: 'first' }, { text: 'second' }]);
    const agent = new Agent({ provider, model: 'm' });
    await agent.run('one');
    await agent.run('two');
    expect(provider.requests[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });

  it('answers broken JSON arguments with a readable tool error and carries on', async () => {
    const provider = scripted([
      { toolCalls: [{ id: 'c1', name: 'calculator', rawInput: '{"expression": "6*' }] },
      { text: 'sorry' },
    ]);
    const agent = new Agent({ provider, model: 'm', tools: [calculatorTool()] });
    const result = await agent.run('What is 6*7?');
    expect(result.status).toBe('completed');
    const answer = provider.requests[1]?.messages.at(-1)?.content[0];
    expect(answer?.type === 'tool_result' && answer.isError).toBe(true);
    expect(JSON.stringify(answer)).toContain('Invalid arguments');
  });

  it('answers a call of an unknown tool with a readable error', async () => {
    const provider = scripted([
      { toolCalls: [{ id: 'c1', name: 'teleport', input: {} }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({ provider, model: 'm', tools: [calculatorTool()] });
    await agent.run('go');
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toContain(
      'Unknown tool: teleport',
    );
  });

  it('ends cleanly when the model returns an empty message', async () => {
    const agent = new Agent({ provider: scripted([{}]), model: 'm' });
    const result = await agent.run('hi');
    expect(result.status).toBe('completed');
    expect(result.text).toBe('');
    expect(validateHistory(agent.history)).toEqual([]);
  });

  it('denies a write tool by default and the model reads why', async () => {
    const log: string[] = [];
    const provider = scripted([
      { toolCalls: [{ id: 'c1', name: 'write_note', input: { text: 'x' } }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({ provider, model: 'm', tools: [writeNote(log)] });
    await agent.run('note x');
    expect(log).toEqual([]);
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toContain('Permission denied');
  });

  it('runs a write tool when the permission is granted', async () => {
    const log: string[] = [];
    const provider = scripted([
      { toolCalls: [{ id: 'c1', name: 'write_note', input: { text: 'x' } }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({
      provider,
      model: 'm',
      tools: [writeNote(log)],
      permissions: { grants: ['write'] },
    });
    await agent.run('note x');
    expect(log).toEqual(['x']);
  });

  it('keeps a valid history when a run is cancelled mid-stream', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      provider: scripted([{ text: 'a long answer', hangAfterEvents: 2 }]),
      model: 'm',
    });
    setTimeout(() => controller.abort(), 20);
    const result = await agent.run('hi', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(validateHistory(agent.history)).toEqual([]);
    expect(agent.history[0]?.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('keeps the prompt and a valid history when the caller stops iterating early', async () => {
    const agent = new Agent({
      provider: scripted([
        { toolCalls: [{ id: 'c1', name: 'calculator', input: { expression: '1+1' } }] },
        { text: 'two' },
      ]),
      model: 'm',
      tools: [calculatorTool()],
    });
    for await (const event of agent.stream('1+1?')) {
      if (event.type === 'tool-call-end') break;
    }
    expect(validateHistory(agent.history)).toEqual([]);
    expect(agent.history[0]?.content).toEqual([{ type: 'text', text: '1+1?' }]);
  });

  it('refuses a second run while one is in progress', async () => {
    const agent = new Agent({ provider: scripted([{ text: 'slow', delayMs: 20 }]), model: 'm' });
    const first = agent.run('one');
    await expect(agent.run('two')).rejects.toThrow(/already running/);
    await first;
  });
});

describe('Agent configuration', () => {
  it('names the model field when it is missing', () => {
    expect(() => new Agent({ provider: fake() } as never)).toThrow(
      expect.objectContaining({ field: 'model' }),
    );
  });

  it('names an unknown option', () => {
    expect(() => new Agent({ provider: fake(), model: 'fake', tool: [] } as never)).toThrow(
      expect.objectContaining({ field: 'tool' }),
    );
  });

  it('names the limit that is out of range', () => {
    expect(() => new Agent({ provider: fake(), model: 'fake', limits: { maxTurns: 0 } })).toThrow(
      expect.objectContaining({ field: 'limits.maxTurns' }),
    );
  });

  it('names the tool that is not a Tool', () => {
    expect(
      () => new Agent({ provider: fake(), model: 'fake', tools: [calculatorTool(), 1 as never] }),
    ).toThrow(expect.objectContaining({ field: 'tools[1]' }));
  });

  it('names permissions.grants when a grant is unknown', () => {
    expect(
      () =>
        new Agent({ provider: fake(), model: 'fake', permissions: { grants: ['root' as never] } }),
    ).toThrow(expect.objectContaining({ field: 'permissions.grants' }));
  });

  it('names the malformed message of a starting history', () => {
    expect(
      () => new Agent({ provider: fake(), model: 'fake', history: [{ role: 'user' } as never] }),
    ).toThrow(expect.objectContaining({ field: 'history[0].id' }));
  });

  it('names temperature when it is not a number', () => {
    expect(
      () => new Agent({ provider: fake(), model: 'fake', temperature: 'hot' as never }),
    ).toThrow(expect.objectContaining({ field: 'temperature' }));
  });

  it('rejects an empty prompt naming prompt', async () => {
    const agent = new Agent({ provider: fake(), model: 'fake' });
    await expect(agent.run('  ')).rejects.toMatchObject({ field: 'prompt' });
  });
});

describe('Agent configuration, continued', () => {
  it('names a mistyped run option', async () => {
    const agent = new Agent({ provider: fake(), model: 'fake' });
    await expect(agent.run('hi', { limit: { maxTurns: 1 } } as never)).rejects.toMatchObject({
      field: 'options.limit',
    });
  });

  it('names a mistyped permissions key', () => {
    expect(
      () =>
        new Agent({ provider: fake(), model: 'fake', permissions: { grant: ['write'] } as never }),
    ).toThrow(expect.objectContaining({ field: 'permissions.grant' }));
  });

  it('names a tracer that is not a Tracer', () => {
    expect(() => new Agent({ provider: fake(), model: 'fake', tracer: {} as never })).toThrow(
      expect.objectContaining({ field: 'tracer' }),
    );
  });

  it('rejects a cost budget for a model without a price when constructed', () => {
    expect(
      () => new Agent({ provider: fake(), model: 'mystery', limits: { maxCostUsd: 1 } }),
    ).toThrow(expect.objectContaining({ field: 'limits.maxCostUsd' }));
  });

  it('keeps the agent limit when a run passes the same key as undefined', async () => {
    const provider = scripted(
      [{ toolCalls: [{ name: 'calculator', input: { expression: '1+1' } }] }],
      {
        whenExhausted: 'repeat-last',
      },
    );
    const agent = new Agent({
      provider,
      model: 'm',
      tools: [calculatorTool()],
      limits: { maxTurns: 2 },
    });
    const result = await agent.run('loop', { limits: { maxTurns: undefined } });
    expect([result.status, result.turns]).toEqual(['guard', 2]);
  });

  it('reports the repair of a given history in its first run', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'ok' }]),
      model: 'm',
      history: [
        { id: 'u0', role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          id: 'a0',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c0', name: 'x', input: {} }],
        },
      ],
    });
    const result = await agent.run('go on');
    expect(result.repairs.map((repair) => repair.kind)).toContain('synthesized-result');
  });
});
