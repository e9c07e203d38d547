import {
  ConfigError,
  type Message,
  type ModelRequest,
  type SessionStore,
  userMessage,
} from '@mh/core';
import { ScriptedProvider, scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore, texts } from './temp-sqlite-store.js';

/**
 * The Agent and its store when a store call fails, a reset is retried, or a prompt is refused:
 * found in review of the identity-based session binding (issue 15), each failing before its fix.
 */
let store: SessionStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  ({ store, remove } = await openTempStore('mh-session-failures-'));
});

afterEach(() => remove());

/** `store`, but its method `name` throws once after each `arm()`. */
function flaky(name: keyof SessionStore): { store: SessionStore; arm: () => void } {
  let armed = 0;
  const wrapped = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key) as (...args: unknown[]) => unknown;
      if (typeof value !== 'function') return value;
      if (key !== name) return value.bind(target);
      return async (...args: unknown[]) => {
        if (armed > 0) {
          armed--;
          throw new Error(`transient ${String(name)} failure`);
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: wrapped, arm: () => void armed++ };
}

describe('a reset whose store part fails', () => {
  it('keeps the view and the store in step when load() reports the failure', async () => {
    const f = flaky('listBranches');
    const provider = scripted([{ text: 'a' }, { text: 'b' }]);
    const agent = new Agent({ provider, model: 'm', session: { store: f.store, id: 's1' } });
    await agent.run('one');
    f.arm();
    void agent.reset();
    await agent.load().catch(() => {});
    expect(agent.history).toEqual([]);
    await agent.run('two');
    const seen = texts(provider.requests.at(-1)?.messages ?? []);
    const stored = texts((await store.load('s1', agent.session?.branch)).messages);
    expect(stored.slice(0, seen.length)).toEqual(seen);
  });

  it('is retried by the next reset and the next run, never silently undone', async () => {
    const f = flaky('listBranches');
    const agent = new Agent({
      provider: scripted([{ text: 'a' }, { text: 'b' }]),
      model: 'm',
      session: { store: f.store, id: 's1' },
    });
    await agent.run('one');
    f.arm();
    await expect(agent.reset()).rejects.toThrow(/transient/);
    await agent.reset();
    expect((await agent.run('two')).status).toBe('completed');
    expect(texts((await store.load('s1')).messages)).toEqual(['user:two', 'assistant:b']);
  });

  it('owed by a failed reset is done by the next run', async () => {
    const f = flaky('listBranches');
    const agent = new Agent({
      provider: scripted([{ text: 'a' }, { text: 'b' }]),
      model: 'm',
      session: { store: f.store, id: 's1' },
    });
    await agent.run('one');
    f.arm();
    await expect(agent.reset()).rejects.toThrow(/transient/);
    expect((await agent.run('two')).status).toBe('completed');
    expect(texts((await store.load('s1')).messages)).toEqual(['user:two', 'assistant:b']);
    expect(texts((await store.load('s1', 'main')).messages)).toEqual(['user:one', 'assistant:a']);
  });
});

describe('a store failure after a reset', () => {
  it('reloads the branch the agent moved to, not the configured one', async () => {
    const f = flaky('commit');
    const provider = scripted([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const agent = new Agent({
      provider,
      model: 'm',
      session: { store: f.store, id: 's1', branch: 'main' },
    });
    await agent.run('before reset');
    await agent.reset();
    const resetBranch = agent.session?.branch;
    f.arm();
    expect((await agent.run('lost to a transient error')).status).toBe('error');
    await agent.run('after reset');
    expect(agent.session?.branch).toBe(resetBranch);
    expect(texts(provider.requests.at(-1)?.messages ?? [])).toEqual(['user:after reset']);
  });
});

describe('a refused run leaves no trace', () => {
  it('refuses a bad per-run signal, naming options.signal, before the prompt is stored', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'a' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.run('first');
    const before = await store.load('s1');
    const error = await agent.run('refused', { signal: 'x' as unknown as AbortSignal }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error) && error.field).toBe('options.signal');
    expect(agent.history.map((message) => message.id)).toEqual(
      before.messages.map((message) => message.id),
    );
    expect((await store.load('s1')).head).toBe(before.head);
    const provider = scripted([{ text: 'x' }]);
    const next = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    expect(await next.resume()).toBeUndefined();
  });

  it('refuses a malformed prompt Message without keeping it', async () => {
    const agent = new Agent({ provider: scripted([{ text: 'a' }]), model: 'm' });
    const bad = {
      id: 'p1',
      role: 'user',
      content: [{ type: 'text', text: 42 }],
    } as unknown as Message;
    const error = await agent.run(bad).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error) && error.field).toMatch(/^prompt\./);
    expect(agent.history).toEqual([]);
    await expect(agent.run('hello')).resolves.toMatchObject({ status: 'completed' });
  });

  it('refuses a prompt whose id the store holds though compaction folded it from the view', async () => {
    let n = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'x',
      permission: 'read',
      input: z.object({ n: z.number() }),
      run: async ({ n }) =>
        `${'status=ok region=eu-west note=routine '.repeat(40)}\norder ORD-${n}\n`,
    });
    const step = (request: ModelRequest) => {
      const usage = {
        inputTokens: Math.ceil(JSON.stringify(request.messages).length / 3.5),
        outputTokens: 10,
      };
      if (request.purpose === 'summary') return { text: 'Orders looked up.', usage };
      n++;
      return n === 30 || n > 31
        ? { text: `answer ${n}`, usage }
        : { toolCalls: [{ name: 'lookup', input: { n } }], usage };
    };
    const agent = new Agent({
      provider: new ScriptedProvider([step], { whenExhausted: 'repeat-last' }),
      model: 'test-model',
      tools: [lookup],
      compaction: { contextWindow: 12_000 },
      limits: { maxTurns: 60 },
      session: { store, id: 's1' },
    });
    const prompt = userMessage('Check the orders.');
    expect((await agent.run(prompt)).compactions.some((record) => record.stage === 'summary')).toBe(
      true,
    );
    expect(agent.history.some((message) => message.id === prompt.id)).toBe(false);
    const error = await agent.run(prompt).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error) && error.field).toBe('prompt.id');
  });
});

describe('a reset before the first run', () => {
  it.each([false, true])('records the fence boundary (reset first: %s)', async (resetFirst) => {
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      permission: 'read',
      input: z.object({}),
      run: async () => 'data',
    });
    const agent = new Agent({
      provider: scripted([{ toolCalls: [{ name: 'echo', input: {} }] }, { text: 'done' }]),
      model: 'm',
      tools: [echo],
      session: { store, id: 's1' },
    });
    if (resetFirst) await agent.reset();
    await agent.run('go');
    const recorded = (await store.load('s1')).checkpoints.map(
      (checkpoint) => checkpoint.meta.extra?.fenceBoundary,
    );
    expect(recorded.every((boundary) => typeof boundary === 'string')).toBe(true);
  });
});

describe('a run that ended in an error', () => {
  it('is not marked cancelled when the consumer stops at its final repair event', async () => {
    const f = flaky('journalTurn');
    f.arm();
    const lookup = defineTool({
      name: 'lookup',
      description: 'x',
      permission: 'read',
      input: z.object({ n: z.number() }),
      run: async () => 'r',
    });
    const agent = new Agent({
      provider: scripted([{ toolCalls: [{ name: 'lookup', input: { n: 1 } }] }]),
      model: 'm',
      tools: [lookup],
      session: { store: f.store, id: 's1' },
    });
    for await (const event of agent.stream('go')) if (event.type === 'history-repair') break;
    expect((await store.load('s1')).checkpoints.at(-1)?.meta.extra?.status).not.toBe('cancelled');
    const resumed = new Agent({
      provider: scripted([{ text: 'retried' }]),
      model: 'm',
      tools: [lookup],
      session: { store, id: 's1' },
    });
    expect((await resumed.resume())?.text).toBe('retried');
  });
});
