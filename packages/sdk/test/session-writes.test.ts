import {
  type Message,
  type SessionStore,
  toolResultsOf,
  toolResultText,
  validateHistory,
} from '@mh/core';
import { MemoryStepRunner } from '@mh/core/testing';
import { scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { interruptedOutcomeText } from '../src/recovery-plan.js';
import { openTempStore } from './temp-sqlite-store.js';

/**
 * The durable writes one step makes (issue 16, target 2), through a real SQLite file. A call that
 * may safely run again (its tool only reads, or is idempotent) needs no start claim and no end
 * record: recovery runs it again. Any other call is claimed before it runs and its result is
 * journaled when it ends, so a crash never runs it twice. A tool turn is committed together with
 * the turn after it (`commitTurns`, one durable write): its calls stay journaled meanwhile.
 */
let store: SessionStore;
let remove: () => Promise<void>;
let calls: Map<string, number>;

beforeEach(async () => {
  const opened = await openTempStore('mh-writes-');
  remove = opened.remove;
  calls = new Map();
  // Counts every store method the Agent calls, then forwards it.
  store = new Proxy(opened.store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
});

afterEach(() => remove());

const WRITES = ['commit', 'commitTurns', 'journalTurn', 'journalStart', 'journalEnd'] as const;
const writes = () => Object.fromEntries(WRITES.map((name) => [name, calls.get(name) ?? 0]));

const ran: string[] = [];
const tool = (name: string, permission: 'read' | 'write', idempotent?: boolean) =>
  defineTool({
    name,
    description: name,
    permission,
    idempotent,
    input: z.object({}),
    run: async (_input, context) => {
      ran.push(`${name}:${context.callId}`);
      return `${name} result`;
    },
  });
const look = tool('look', 'read');
const peek = tool('peek', 'read', false);
const save = tool('save', 'write', true);
const send = tool('send', 'write');

/** An Agent on session s1 with every tool granted, playing `turns`. */
const agentWith = (turns: Parameters<typeof scripted>[0], maxTurns?: number) =>
  new Agent({
    provider: scripted(turns),
    model: 'claude-sonnet-4-5',
    tools: [look, peek, save, send],
    permissions: { grants: ['write'] },
    session: { store, id: 's1' },
    ...(maxTurns === undefined ? {} : { limits: { maxTurns } }),
  });

/** One step: the model calls `name` once, then answers. */
async function step(name: string): Promise<void> {
  const agent = agentWith([{ toolCalls: [{ id: 'c1', name, input: {} }] }, { text: 'done' }]);
  const result = await agent.run('go');
  expect(result.status).toBe('completed');
  calls.clear();
  ran.length = 0;
  // The measured step, on a session that exists (the first run created it).
  const second = agentWith([{ toolCalls: [{ id: 'c2', name, input: {} }] }, { text: 'done' }]);
  expect((await second.run('again')).status).toBe('completed');
  expect(ran).toEqual([`${name}:c2`]);
}

describe('the journal a prompt reads', () => {
  it('is not read for a prompt: the prompt’s commit refuses a pending turn instead', async () => {
    await step('look');
    const agent = agentWith([
      { toolCalls: [{ id: 'c2', name: 'look', input: {} }] },
      { text: 'ok' },
    ]);
    calls.clear();
    await agent.run('again');
    expect(calls.get('pendingTurn') ?? 0).toBe(0);
    expect(writes()).toEqual({
      commit: 1,
      commitTurns: 1,
      journalTurn: 1,
      journalStart: 0,
      journalEnd: 0,
    });
  });

  it('finishes a turn another writer journaled on this agent’s head before the prompt lands', async () => {
    const agent = agentWith([{ text: 'first' }, { text: 'second' }]);
    await agent.run('one');
    // Another process, on the head this agent holds, journals a turn, starts `send` and dies.
    const { head } = await store.load('s1');
    const assistant: Message = {
      id: 'theirs',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'x1', name: 'send', input: {} }],
    };
    await store.journalTurn('s1', 'main', head, assistant);
    await store.journalStart('s1', 'main', 'x1');
    ran.length = 0;
    calls.clear();
    expect((await agent.run('two')).status).toBe('completed');
    // The refused commit, one read of the journal, then the prompt with the turn finished.
    expect(calls.get('pendingTurn')).toBe(1);
    expect(ran).toEqual([]);
    const { messages } = await store.load('s1');
    expect(validateHistory(messages)).toEqual([]);
    const ids = messages.map((message) => message.id);
    expect(ids.indexOf('theirs')).toBeGreaterThan(-1);
    expect(ids.indexOf('theirs')).toBeLessThan(ids.length - 2);
    expect(resultText(messages)).toBe(
      interruptedOutcomeText({ type: 'tool_use', id: 'x1', name: 'send', input: {} }),
    );
    expect(messages.at(-1)?.content).toEqual([{ type: 'text', text: 'second' }]);
    expect(await store.pendingTurn('s1', 'main')).toBeUndefined();
  });
});

describe('a tool turn held for the turn after it', () => {
  beforeEach(() => {
    ran.length = 0;
  });
  it('is committed before the next turn is journaled: two tool turns, then the answer', async () => {
    const agent = agentWith([
      { toolCalls: [{ id: 'c1', name: 'look', input: {} }] },
      { toolCalls: [{ id: 'c2', name: 'look', input: {} }] },
      { text: 'done' },
    ]);
    expect((await agent.run('go')).status).toBe('completed');
    expect(writes()).toEqual({
      commit: 2,
      commitTurns: 1,
      journalTurn: 2,
      journalStart: 0,
      journalEnd: 0,
    });
    const { messages, checkpoints } = await store.load('s1');
    expect(validateHistory(messages)).toEqual([]);
    // One checkpoint per turn, as with one commit each: the prompt, two tool turns, the answer.
    expect(checkpoints.map((checkpoint) => checkpoint.messageIds.length)).toEqual([1, 2, 2, 1]);
    expect(await store.pendingTurn('s1', 'main')).toBeUndefined();
  });

  it('is committed alone when the run stops after it (turn limit)', async () => {
    const agent = agentWith([{ toolCalls: [{ id: 'c1', name: 'look', input: {} }] }], 1);
    const result = await agent.run('go');
    expect(result.status).not.toBe('completed');
    const { messages } = await store.load('s1');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(validateHistory(messages)).toEqual([]);
    expect(await store.pendingTurn('s1', 'main')).toBeUndefined();
  });

  it('is committed when the next model call fails, and the run ends in error', async () => {
    const agent = agentWith([
      { toolCalls: [{ id: 'c1', name: 'send', input: {} }] },
      { error: new Error('the network went away') },
    ]);
    const result = await agent.run('go');
    expect(result.status).toBe('error');
    expect(ran).toEqual(['send:c1']);
    const { messages } = await store.load('s1');
    expect(resultText(messages)).toContain('send result');
    expect(validateHistory(messages)).toEqual([]);
    expect(await store.pendingTurn('s1', 'main')).toBeUndefined();
  });
});

describe('a durable run (AgentOptions.steps)', () => {
  it('holds no tool turn back: each turn is its own store step, as before', async () => {
    const agent = new Agent({
      provider: scripted([{ toolCalls: [{ id: 'c1', name: 'look', input: {} }] }, { text: 'ok' }]),
      model: 'claude-sonnet-4-5',
      tools: [look],
      fencing: { boundary: 'untrusted-writes' },
      session: { store, id: 's1' },
      steps: new MemoryStepRunner('wf-writes'),
    });
    expect((await agent.run('go')).status).toBe('completed');
    expect(writes()).toMatchObject({ commit: 3, commitTurns: 0, journalTurn: 1 });
  });
});

describe('the durable writes of one step', () => {
  it('a read tool: the prompt, the journal before the tools, then the tool turn with the answer', async () => {
    await step('look');
    expect(writes()).toEqual({
      commit: 1,
      commitTurns: 1,
      journalTurn: 1,
      journalStart: 0,
      journalEnd: 0,
    });
  });

  it('an idempotent write tool: the same four writes', async () => {
    await step('save');
    expect(writes()).toEqual({
      commit: 1,
      commitTurns: 1,
      journalTurn: 1,
      journalStart: 0,
      journalEnd: 0,
    });
  });

  it('a read tool that says idempotent: false is claimed and journaled like a write', async () => {
    await step('peek');
    expect(writes()).toEqual({
      commit: 1,
      commitTurns: 1,
      journalTurn: 1,
      journalStart: 1,
      journalEnd: 1,
    });
  });

  it('a write tool that is not idempotent is also claimed before it runs and journaled after', async () => {
    await step('send');
    expect(writes()).toEqual({
      commit: 1,
      commitTurns: 1,
      journalTurn: 1,
      journalStart: 1,
      journalEnd: 1,
    });
  });
});

/** A prompt committed and a turn journaled on top of it, as a process leaves it when it dies. */
async function crashDuring(name: string, started: boolean): Promise<void> {
  await store.createSession({ id: 's1' });
  const prompt = await store.commit(
    's1',
    { messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'go' }] }], meta: {} },
    { expectedHead: null },
  );
  const assistant: Message = {
    id: 'a1',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'c1', name, input: {} }],
  };
  await store.journalTurn('s1', 'main', prompt.id, assistant);
  // A journal written before reads went unclaimed has the read call started.
  if (started) await store.journalStart('s1', 'main', 'c1');
  ran.length = 0;
}

async function resumeAfterCrash(): Promise<readonly Message[]> {
  const agent = agentWith([{ text: 'finished' }]);
  expect((await agent.resume())?.status).toBe('completed');
  const { messages } = await store.load('s1');
  expect(validateHistory(messages)).toEqual([]);
  return messages;
}

const resultText = (messages: readonly Message[]): string => {
  const [result] = messages.flatMap(toolResultsOf);
  return result === undefined ? '' : toolResultText(result);
};

describe('resuming after a crash while a call ran', () => {
  for (const started of [false, true]) {
    it(`runs a read call again and the model reads its result (journaled as started: ${started})`, async () => {
      await crashDuring('look', started);
      const messages = await resumeAfterCrash();
      expect(ran).toEqual(['look:c1']);
      expect(resultText(messages)).toContain('look result');
    });
  }

  it('does not run a started write call that is not idempotent: its outcome is unknown', async () => {
    await crashDuring('send', true);
    const messages = await resumeAfterCrash();
    expect(ran).toEqual([]);
    expect(resultText(messages)).toBe(
      interruptedOutcomeText({ type: 'tool_use', id: 'c1', name: 'send', input: {} }),
    );
  });
});
