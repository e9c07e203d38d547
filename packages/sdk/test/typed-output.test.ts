import {
  ConfigError,
  messageText,
  OutputInvalidError,
  type SessionStore,
  validateHistory,
} from '@mh/core';
import { ScriptedProvider } from '@mh/core/testing';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore, texts } from './temp-sqlite-store.js';

const City = z.object({
  city: z.string(),
  population: z.number().int(),
  nickname: z.string().optional(),
});

let store: SessionStore;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ store, remove } = await openTempStore('mh-typed-'));
});
afterEach(() => remove());

describe('Agent typed output', () => {
  it('gives result.output typed by the zod schema and validated', async () => {
    const agent = new Agent({
      provider: new ScriptedProvider(
        [{ text: '{"city":"Paris","population":2,"nickname":null}' }],
        {
          nativeOutput: true,
        },
      ),
      model: 'claude-sonnet-4-5',
    });
    const result = await agent.run('Which city?', { output: City });
    expect(result.status).toBe('completed');
    if (result.status !== 'completed') return;
    expectTypeOf(result.output).toEqualTypeOf<{
      city: string;
      population: number;
      nickname?: string | undefined;
    }>();
    expect(result.output).toEqual({ city: 'Paris', population: 2 });
    // Without output the result type is the plain RunResult.
    const plain = new Agent({ provider: new ScriptedProvider([{ text: 'hi' }]), model: 'm' });
    expectTypeOf((await plain.run('hi')).output).toEqualTypeOf<unknown>();
  });

  it('keeps the corrections in a session, with a paired history a new agent can continue', async () => {
    const provider = new ScriptedProvider(
      [{ text: '{"city":"Paris"}' }, { text: '{"city":"Paris","population":2}' }, { text: 'ok' }],
      { nativeOutput: true },
    );
    const agent = new Agent({ provider, model: 'm', session: { store, id: 's' } });
    const result = await agent.run('Which city?', { output: { schema: City, maxRetries: 1 } });
    expect(result.output).toEqual({ city: 'Paris', population: 2 });
    const stored = await store.load('s');
    expect(validateHistory(stored.messages)).toEqual([]);
    expect(stored.messages).toHaveLength(4);
    expect(messageText(stored.messages[2] as never)).toContain('population');
    const again = new Agent({ provider, model: 'm', session: { store, id: 's' } });
    const next = await again.run('Thanks');
    expect(next.status).toBe('completed');
    expect(next.output).toBeUndefined();
  });

  it('runs tools, then takes the final tool call, through the default executor', async () => {
    let looked = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a city up',
      input: z.object({ name: z.string() }),
      permission: 'read',
      run: async ({ name }) => {
        looked++;
        return `${name}: 2100000 people`;
      },
    });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'lookup', input: { name: 'Paris' } }] },
      { toolCalls: [{ name: 'answer', input: { city: 'Paris', population: 2100000 } }] },
    ]);
    const agent = new Agent({ provider, model: 'm', tools: [lookup] });
    const result = await agent.run('Paris?', { output: { schema: City, name: 'answer' } });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ city: 'Paris', population: 2100000 });
    expect(looked).toBe(1);
    expect(provider.requests[0]?.toolChoice).toBe('required');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('streams output-delta events', async () => {
    const agent = new Agent({
      provider: new ScriptedProvider([{ text: [...'{"city":"Rome","population":3}'] }], {
        nativeOutput: true,
      }),
      model: 'm',
    });
    const partials: unknown[] = [];
    for await (const event of agent.stream('Rome?', { output: City })) {
      if (event.type === 'output-delta') partials.push(event.partial);
    }
    expect(partials[0]).toEqual({});
    expect(partials).toContainEqual({ city: 'Ro' });
    expect(partials.at(-1)).toEqual({ city: 'Rome', population: 3 });
  });

  it('ends with OutputInvalidError after the retries, the history still valid', async () => {
    const agent = new Agent({
      provider: new ScriptedProvider([{ text: 'Paris' }, { text: 'Still Paris' }], {
        nativeOutput: true,
      }),
      model: 'm',
      session: { store, id: 'bad' },
    });
    const result = await agent.run('Which city?', { output: { schema: City, maxRetries: 1 } });
    expect(result.status).toBe('error');
    expect(OutputInvalidError.isInstance(result.error)).toBe(true);
    expect((result.error as OutputInvalidError).text).toBe('Still Paris');
    expect(validateHistory((await store.load('bad')).messages)).toEqual([]);
  });

  it('refuses a bad output option before the prompt is kept or stored', async () => {
    const agent = new Agent({
      provider: new ScriptedProvider([{ text: 'x' }]),
      model: 'm',
      session: { store, id: 'refused' },
      tools: [
        defineTool({
          name: 'final_answer',
          description: 'clashes',
          input: z.object({}),
          permission: 'read',
          run: async () => 'x',
        }),
      ],
    });
    const cases: [unknown, string][] = [
      [{ schema: City, maxRetries: -1 }, 'options.output.maxRetries'],
      [City, 'options.output.name'],
      [{ schema: 'not a schema' }, 'options.output.schema'],
      [42, 'options.output'],
      [{ schema: z.date(), name: 'x' }, 'options.output.schema'],
      [{ schema: City, name: 'x', strategy: 'native' }, 'options.output.strategy'],
    ];
    for (const [output, field] of cases) {
      const error = await agent.run('Hi', { output: output as never }).catch((e: unknown) => e);
      expect(ConfigError.isInstance(error), String(field)).toBe(true);
      expect((error as ConfigError).field).toBe(field);
    }
    expect(agent.history).toEqual([]);
    expect(texts((await store.load('refused').catch(() => ({ messages: [] }))).messages)).toEqual(
      [],
    );
  });
});
