import { ConfigError, type Message, type SessionStore, validateHistory } from '@mh/core';
import { scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore, texts } from './temp-sqlite-store.js';

/**
 * The seams between the Agent and its store where the first build lost work (issue 15, SPEC
 * defects 4, 5 and 6), through a real SQLite file.
 */
let store: SessionStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  ({ store, remove } = await openTempStore('mh-seams-'));
});

afterEach(() => remove());

/** Every branch of the session holds a valid history with no two user prompts lost. */
async function expectValidBranches(sessionId: string): Promise<void> {
  for (const branch of await store.listBranches(sessionId)) {
    const state = await store.load(sessionId, branch.name);
    expect(validateHistory(state.messages), branch.name).toEqual([]);
  }
}

describe('Agent.reset with a session', () => {
  it('keeps the next prompt: reset starts a new branch from empty and records it', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'three' }, { text: 'four' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.run('What is 1+2?');
    await agent.reset();
    expect(agent.history).toEqual([]);
    const after = await agent.run('What is 2+2?');
    expect(after.status).toBe('completed');

    const current = await store.load('s1');
    expect(texts(current.messages)).toEqual(['user:What is 2+2?', 'assistant:four']);
    expect(current.branch).not.toBe('main');
    const main = await store.load('s1', 'main');
    expect(texts(main.messages)).toEqual(['user:What is 1+2?', 'assistant:three']);
    await expectValidBranches('s1');

    // A new agent on the session continues after the reset, not before it.
    const provider = scripted([{ text: 'five' }]);
    const next = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    await next.run('And 2+3?');
    expect(texts(provider.requests[0]?.messages ?? [])).toEqual([
      'user:What is 2+2?',
      'assistant:four',
      'user:And 2+3?',
    ]);
  });

  it('keeps the next prompt when the reset is not awaited', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'three' }, { text: 'four' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.run('What is 1+2?');
    void agent.reset();
    await agent.run('What is 2+2?');
    expect(texts((await store.load('s1')).messages)).toEqual([
      'user:What is 2+2?',
      'assistant:four',
    ]);
  });

  it('resets twice in a row and on a new session without losing a prompt', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'a' }, { text: 'b' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.reset(); // nothing stored yet: nothing to leave behind
    await agent.run('one');
    await agent.reset();
    await agent.reset();
    await agent.run('two');
    expect(texts((await store.load('s1')).messages)).toEqual(['user:two', 'assistant:b']);
    const all = await Promise.all(
      (await store.listBranches('s1')).map(async (branch) =>
        texts((await store.load('s1', branch.name)).messages),
      ),
    );
    expect(all.flat().filter((text) => text.startsWith('user:'))).toEqual(
      expect.arrayContaining(['user:one', 'user:two']),
    );
    await expectValidBranches('s1');
  });
});

describe('a cancelled run with a session', () => {
  it('is recorded as cancelled and resume() does not call the model for it', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      provider: scripted([{ text: 'never seen', hangAfterEvents: 0 }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    setTimeout(() => controller.abort(), 20);
    const result = await agent.run('a long question', { signal: controller.signal });
    expect(result.status).toBe('cancelled');

    const provider = scripted([{ text: 'should not be asked' }]);
    const resumed = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    expect(await resumed.resume()).toBeUndefined();
    expect(provider.requests).toHaveLength(0);
    const state = await store.load('s1');
    expect(validateHistory(state.messages)).toEqual([]);
    expect(state.checkpoints.at(-1)?.meta.extra?.status).toBe('cancelled');
  });

  it('is not re-run by the next run: the model sees the cancel, then the new prompt', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      provider: scripted([{ text: 'never seen', hangAfterEvents: 0 }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    setTimeout(() => controller.abort(), 20);
    await agent.run('first', { signal: controller.signal });
    const provider = scripted([{ text: 'second answer' }]);
    const next = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    expect((await next.run('second')).text).toBe('second answer');
    expect(provider.requests).toHaveLength(1);
    const roles = provider.requests[0]?.messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it('stays cancelled when the consumer abandons the stream', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'never seen', hangAfterEvents: 0 }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    for await (const event of agent.stream('abandon me')) {
      if (event.type === 'run-start') break;
    }
    const provider = scripted([{ text: 'should not be asked' }]);
    const resumed = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    expect(await resumed.resume()).toBeUndefined();
    expect(provider.requests).toHaveLength(0);
  });

  it('stays cancelled when the cancel lands while a tool runs', async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: 'slow',
      description: 'waits until aborted',
      permission: 'read',
      input: z.object({}),
      run: (_input, context) =>
        new Promise<string>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
          setTimeout(() => controller.abort(), 10);
        }),
    });
    const agent = new Agent({
      provider: scripted([{ toolCalls: [{ name: 'slow', input: {} }] }]),
      model: 'm',
      tools: [slow],
      session: { store, id: 's1' },
    });
    expect((await agent.run('go', { signal: controller.signal })).status).toBe('cancelled');
    const provider = scripted([{ text: 'should not be asked' }]);
    const resumed = new Agent({
      provider,
      model: 'm',
      tools: [slow],
      session: { store, id: 's1' },
    });
    expect(await resumed.resume()).toBeUndefined();
    expect(provider.requests).toHaveLength(0);
    expect(validateHistory((await store.load('s1')).messages)).toEqual([]);
  });

  it('a crash (nothing recorded) is still finished by resume()', async () => {
    await store.createSession({ id: 's1' });
    await store.commit(
      's1',
      { messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'q' }] }], meta: {} },
      { expectedHead: null },
    );
    const provider = scripted([{ text: 'answered' }]);
    const agent = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    expect((await agent.resume())?.text).toBe('answered');
  });
});

describe('two agents on a new session', () => {
  // Found by the Agent conformance suite (seed 1536942878, path "3:1": race(text | text)).
  it('both create it without an error: the slower one finds it created', async () => {
    const a = new Agent({
      provider: scripted([{ text: 'a' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    const b = new Agent({
      provider: scripted([{ text: 'b' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    const results = await Promise.all([a.run('from a'), b.run('from b')]);
    for (const result of results) {
      expect(result.status === 'completed' || result.error?.name === 'SessionConflictError').toBe(
        true,
      );
    }
    expect(results.some((result) => result.status === 'completed')).toBe(true);
    await expectValidBranches('s1');
  });
});

describe('a second agent resuming while the first runs its tools', () => {
  // Found by the Agent conformance suite: race-resume(readnote,sendonce+readnote+sendonce).
  it('never runs a non-idempotent call twice, and every refusal is a typed result', async () => {
    const sent: string[] = [];
    let slowRuns = 0;
    let slowStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const slow = defineTool({
      name: 'slow',
      description: 'takes a while',
      permission: 'read',
      idempotent: true,
      input: z.object({}),
      run: async () => {
        slowStarted();
        // The second agent's re-run is slower: the first commits its turn while it runs.
        await new Promise((resolve) => setTimeout(resolve, slowRuns++ < 2 ? 30 : 150));
        return 'slow done';
      },
    });
    const send = defineTool({
      name: 'send',
      description: 'sends once',
      permission: 'write',
      idempotent: false,
      input: z.object({}),
      run: async (_input, context) => {
        sent.push(context.callId);
        return 'sent';
      },
    });
    const tools = [slow, send];
    const turns = [
      {
        toolCalls: [
          { id: 'c1', name: 'slow', input: {} },
          { id: 'c2', name: 'slow', input: {} },
        ],
      },
      {
        toolCalls: [
          { id: 'c3', name: 'send', input: {} },
          { id: 'c4', name: 'send', input: {} },
        ],
      },
      { text: 'done' },
    ];
    const first = new Agent({
      provider: scripted(turns),
      model: 'm',
      tools,
      session: { store, id: 's1' },
      permissions: { grants: ['write'] },
    });
    const second = new Agent({
      provider: scripted([{ text: 'resumed' }]),
      model: 'm',
      tools,
      session: { store, id: 's1' },
      permissions: { grants: ['write'] },
    });
    const running = first.run('go');
    await started;
    const resumed = await second.resume();
    const result = await running;
    for (const outcome of [result, resumed]) {
      if (outcome === undefined || outcome.status === 'completed') continue;
      expect(outcome.error?.name).toBe('SessionConflictError');
    }
    expect(new Set(sent).size).toBe(sent.length);
    await expectValidBranches('s1');
  });
});

describe('journalStart is a claim', () => {
  it('refuses a second start of the same call with a SessionConflictError', async () => {
    await store.createSession({ id: 's1' });
    const head = await store.commit(
      's1',
      { messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'q' }] }], meta: {} },
      { expectedHead: null },
    );
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'x', name: 'send', input: {} }],
    };
    await store.journalTurn('s1', 'main', head.id, assistant);
    await store.journalStart('s1', 'main', 'x');
    const second = await store.journalStart('s1', 'main', 'x').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((second as Error | undefined)?.name).toBe('SessionConflictError');
    expect((await store.pendingTurn('s1', 'main'))?.calls[0]?.started).toBe(true);
  });
});

describe('a bad per-run option', () => {
  it('is refused before the prompt is committed or kept', async () => {
    const provider = scripted([{ text: 'ok' }]);
    const agent = new Agent({ provider, model: 'unpriced-model', session: { store, id: 's1' } });
    await agent.run('first');
    const before = await store.load('s1');
    let error: unknown;
    try {
      await agent.run('x', { limits: { maxCostUsd: 1 } });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) ? error.field : error).toBe('options.limits.maxCostUsd');
    expect(agent.history.map((message) => message.id)).toEqual(
      before.messages.map((message) => message.id),
    );
    expect((await store.load('s1')).head).toBe(before.head);
  });

  it('is refused without a session too, leaving the history as it was', async () => {
    const agent = new Agent({ provider: scripted([{ text: 'ok' }]), model: 'unpriced-model' });
    await expect(agent.run('x', { limits: { maxCostUsd: 1 } })).rejects.toThrow(/price/);
    expect(agent.history).toEqual([]);
  });

  it('refuses a prompt whose id is already in the history instead of dropping it', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'a' }, { text: 'b' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    const prompt: Message = { id: 'p1', role: 'user', content: [{ type: 'text', text: 'hi' }] };
    await agent.run(prompt);
    await expect(agent.run(prompt)).rejects.toThrow(/prompt\.id/);
    expect(texts((await store.load('s1')).messages)).toEqual(['user:hi', 'assistant:a']);
  });
});
