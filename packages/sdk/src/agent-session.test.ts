import { ConfigError, type Message, SessionConflictError, validateHistory } from '@mh/core';
import { scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemorySessionStore } from '../test/memory-session-store.js';
import { Agent } from './agent.js';
import type { AgentSession } from './session-binding.js';

function counterTool(name: string, idempotent: boolean, runs: string[]) {
  return defineTool({
    name,
    description: `counts runs of ${name}`,
    permission: idempotent ? 'read' : 'write',
    idempotent,
    input: z.object({}),
    run: async () => {
      runs.push(name);
      return `${name} done`;
    },
  });
}

const user = (id: string, text: string): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
});

describe('Agent with a session', () => {
  it.each([
    ['session.branh', { branh: 'retry' }],
    ['session.branch', { branch: 5 }],
    ['session.branch', { branch: '' }],
    ['session.title', { title: 42 }],
  ])('rejects a bad session option with ConfigError naming %s', (field, extra) => {
    const session = { store: new MemorySessionStore(), id: 's1', ...extra } as AgentSession;
    let error: unknown;
    try {
      new Agent({ provider: scripted([]), model: 'm', session });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) ? error.field : error).toBe(field);
  });

  it('commits every turn and a new agent on the same session continues the conversation', async () => {
    const store = new MemorySessionStore();
    const first = new Agent({
      provider: scripted([{ text: 'one' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await first.run('hello');
    const provider = scripted([{ text: 'two' }]);
    const second = new Agent({ provider, model: 'm', session: { store, id: 's1' } });
    await second.run('again');
    expect(provider.requests[0]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    const state = await store.load('s1');
    expect(state.messages).toHaveLength(4);
    expect(validateHistory(state.messages)).toEqual([]);
  });

  it('resumes a turn a crash interrupted without running a non-idempotent tool twice', async () => {
    const store = new MemorySessionStore();
    await store.createSession({ id: 's1' });
    const prompt = await store.commit(
      's1',
      { messages: [user('u1', 'do things')], meta: {} },
      { expectedHead: null },
    );
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'done', name: 'charge', input: {} },
        { type: 'tool_use', id: 'midway', name: 'charge', input: {} },
        { type: 'tool_use', id: 'lookup', name: 'lookup', input: {} },
        { type: 'tool_use', id: 'never', name: 'charge', input: {} },
      ],
    };
    // The journal as a kill -9 would leave it: one call finished, two started, one never started.
    await store.journalTurn('s1', 'main', prompt.id, assistant);
    await store.journalStart('s1', 'main', 'done');
    await store.journalEnd('s1', 'main', 'done', {
      type: 'tool_result',
      toolUseId: 'done',
      content: [{ type: 'text', text: 'charged' }],
      isError: false,
    });
    await store.journalStart('s1', 'main', 'midway');
    await store.journalStart('s1', 'main', 'lookup');
    const runs: string[] = [];
    const provider = scripted([{ text: 'all settled' }]);
    const agent = new Agent({
      provider,
      model: 'm',
      tools: [counterTool('charge', false, runs), counterTool('lookup', true, runs)],
      permissions: { grants: ['write'] },
      session: { store, id: 's1' },
    });
    const result = await agent.resume();
    expect(result?.status).toBe('completed');
    // `lookup` (idempotent) ran again; `never` (not started) ran; `midway` did not run twice.
    expect(runs.sort()).toEqual(['charge', 'lookup']);
    const results = provider.requests[0]?.messages.at(-1)?.content ?? [];
    const text = (id: string) =>
      JSON.stringify(
        results.find((block) => block.type === 'tool_result' && block.toolUseId === id),
      );
    expect(text('done')).toContain('charged');
    expect(text('midway')).toContain('outcome is');
    expect(text('midway')).toContain('unknown');
    expect(text('never')).toContain('charge done');
    const state = await store.load('s1');
    expect(validateHistory(state.messages)).toEqual([]);
    expect(await store.pendingTurn('s1', 'main')).toBeUndefined();
  });

  it('answers a committed prompt whose model call a crash interrupted', async () => {
    const store = new MemorySessionStore();
    await store.createSession({ id: 's1' });
    await store.commit(
      's1',
      { messages: [user('u1', 'still there?')], meta: {} },
      { expectedHead: null },
    );
    const agent = new Agent({
      provider: scripted([{ text: 'yes' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    const result = await agent.resume();
    expect(result?.text).toBe('yes');
    expect((await store.load('s1')).messages).toHaveLength(2);
  });

  it('resolves to undefined when there is nothing to resume', async () => {
    const store = new MemorySessionStore();
    const agent = new Agent({
      provider: scripted([{ text: 'hi' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.run('hello');
    expect(await agent.resume()).toBeUndefined();
  });

  it('ends with a SessionConflictError when another writer moved the head, then reloads', async () => {
    const store = new MemorySessionStore();
    const a = new Agent({
      provider: scripted([{ text: 'a1' }, { text: 'a2' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    const b = new Agent({
      provider: scripted([{ text: 'b1' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await a.run('first');
    await b.run('from b');
    const conflicted = await a.run('second');
    expect(conflicted.status).toBe('error');
    expect(SessionConflictError.isInstance(conflicted.error)).toBe(true);
    const again = await a.run('third');
    expect(again.status).toBe('completed');
    const state = await store.load('s1');
    expect(state.messages.map((message) => message.content[0])).toContainEqual({
      type: 'text',
      text: 'b1',
    });
    expect(validateHistory(state.messages)).toEqual([]);
  });

  it('commits a cancelled turn so the stored history stays valid', async () => {
    const store = new MemorySessionStore();
    const controller = new AbortController();
    const agent = new Agent({
      provider: scripted([{ text: 'a long answer', hangAfterEvents: 2 }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    setTimeout(() => controller.abort(), 20);
    const result = await agent.run('hi', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    const state = await store.load('s1');
    expect(validateHistory(state.messages)).toEqual([]);
    expect(state.messages[0]?.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('rejects history and session together, naming history', () => {
    expect(
      () =>
        new Agent({
          provider: scripted([]),
          model: 'm',
          history: [],
          session: { store: new MemorySessionStore(), id: 's' },
        }),
    ).toThrow(expect.objectContaining({ field: 'history' }));
  });
});

describe('Agent branches', () => {
  it('rewinds to an earlier turn on a new branch and leaves the old branch as it was', async () => {
    const store = new MemorySessionStore();
    const agent = new Agent({
      provider: scripted([{ text: 'one' }, { text: 'two' }, { text: 'two, again' }]),
      model: 'm',
      session: { store, id: 's1' },
    });
    await agent.run('first');
    await agent.run('second');
    const before = JSON.stringify((await store.load('s1', 'main')).messages);
    const checkpoints = await store.listCheckpoints('s1');
    const afterFirstAnswer = checkpoints.find((checkpoint) => checkpoint.turn === 2);
    await agent.rewind(afterFirstAnswer?.id ?? null, 'retry');
    await agent.run('second, differently');
    expect(JSON.stringify((await store.load('s1', 'main')).messages)).toBe(before);
    const retry = await store.load('s1', 'retry');
    expect(retry.messages.map((message) => message.content[0])).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'one' },
      { type: 'text', text: 'second, differently' },
      { type: 'text', text: 'two, again' },
    ]);
    expect(agent.session).toEqual({ id: 's1', branch: 'retry' });
  });

  it('refuses branch operations without a session, naming session', async () => {
    const agent = new Agent({ provider: scripted([]), model: 'm' });
    await expect(agent.fork('x')).rejects.toMatchObject({ field: 'session' });
  });
});
