import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  type Message,
  type RunResult,
  type SessionStore,
  validateHistory,
} from '@mh/core';
import { scripted } from '@mh/providers';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool } from '@mh/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';

// A conversation's next run appends to the history the agent keeps, in place, so a run costs what
// it adds and not the length of the conversation. What the agent has handed out — a run's
// `messages`, `agent.history` — must not change under the caller when later runs append.

const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);

function chatAgent(session?: { store: SessionStore; id: string }): Agent {
  return new Agent({
    provider: scripted([{ text: 'ok' }], { whenExhausted: 'repeat-last' }),
    model: 'claude-sonnet-4-5',
    ...(session ? { session } : {}),
  });
}

/** A store whose every call fails, as one whose database went away. */
function downStore(): SessionStore {
  const down = async (): Promise<never> => {
    throw new Error('the store is down');
  };
  return new Proxy({} as SessionStore, { get: () => down });
}

/** Five runs of `agent`, their results read only after all of them. */
async function fiveRuns(agent: Agent): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (let n = 0; n < 5; n++) results.push(await agent.run(`question ${n}`));
  return results;
}

describe('the history an agent hands out', () => {
  it('keeps each run result and each agent.history copy as it was when later runs append', async () => {
    const agent = chatAgent();
    const kept: { messages: readonly Message[]; ids: string[] }[] = [];
    const copies: { messages: readonly Message[]; ids: string[] }[] = [];
    for (let n = 0; n < 5; n++) {
      const result = await agent.run(`question ${n}`);
      expect(result.status).toBe('completed');
      kept.push({ messages: result.messages, ids: ids(result.messages) });
      copies.push({ messages: agent.history, ids: ids(agent.history) });
    }
    for (const [n, { messages, ids: then }] of kept.entries()) {
      expect(ids(messages)).toEqual(then);
      expect(messages).toHaveLength(2 * (n + 1));
    }
    for (const { messages, ids: then } of copies) expect(ids(messages)).toEqual(then);
    expect(agent.history).toHaveLength(10);
  });

  it('refuses the prompt object of an earlier string prompt sent again, and keeps that run as it was', async () => {
    const agent = chatAgent();
    const first = await agent.run('first');
    const repeated = first.messages[0] as Message;
    // The prompt object of a string prompt, sent again: its id is in the conversation now.
    const error = await agent.run(repeated).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ field: 'prompt.id' });
    const before = ids(agent.history);
    await agent.run('second');
    expect(ids(first.messages)).toEqual(before);
    expect(agent.history).toHaveLength(4);
  });

  it('does not let a caller that changes a run result change the conversation', async () => {
    const agent = chatAgent();
    const result = await agent.run('first');
    (result.messages as Message[]).length = 0;
    await agent.run('second');
    expect(agent.history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('keeps each run result as it was when it is first read only after later runs', async () => {
    const agent = chatAgent();
    const results = await fiveRuns(agent);
    const history = agent.history;
    for (const [n, result] of results.entries()) {
      expect(result.status).toBe('completed');
      expect(ids(result.messages)).toEqual(ids(history.slice(0, 2 * (n + 1))));
    }
  });

  it('keeps each run result as it was with a session too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-history-ownership-'));
    const store = await openSqliteStore(join(dir, 'session.db'));
    try {
      const agent = chatAgent({ store, id: 'chat' });
      const results = await fiveRuns(agent);
      const stored = (await store.load('chat')).messages;
      expect(ids(agent.history)).toEqual(ids(stored));
      for (const [n, result] of results.entries())
        expect(ids(result.messages)).toEqual(ids(stored.slice(0, 2 * (n + 1))));
      // A caller emptying a result after the fact changes neither the agent nor the store.
      (results[4]?.messages as Message[]).length = 0;
      const next = await agent.run('one more');
      expect(next.messages).toHaveLength(12);
      expect((await store.load('chat')).messages).toHaveLength(12);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not let a caller change the conversation through a run that failed before it started', async () => {
    // A store that cannot load: the run ends before it started, with the history in its result.
    const down = new Agent({
      provider: scripted([{ text: 'ok' }]),
      model: 'claude-sonnet-4-5',
      session: { store: downStore(), id: 's' },
    });
    const result = await down.run('hello');
    expect(result.status).toBe('error');
    (result.messages as Message[]).push({ id: 'x', role: 'user', content: [] });
    expect(down.history.map((message) => message.id)).not.toContain('x');
  });

  // The run appends to the conversation's own array as it goes: what the agent shows meanwhile
  // is the conversation as the run started (its prompt last), never a call without its result.
  it('shows a paired history while a run is under way: to a tool, and between stream events', async () => {
    const seen: Message[][] = [];
    const peek = defineTool({
      name: 'peek',
      description: 'Looks at the agent history.',
      input: z.object({}),
      permission: 'read',
      run: () => {
        seen.push(agent.history.slice());
        return 'looked';
      },
    });
    const agent: Agent = new Agent({
      provider: scripted(
        [{ text: 'hello' }, { toolCalls: [{ name: 'peek', input: {} }] }, { text: 'done' }],
        { whenExhausted: 'repeat-last' },
      ),
      model: 'claude-sonnet-4-5',
      tools: [peek],
    });
    await agent.run('hi');
    const between: string[] = [];
    for await (const event of agent.stream('look')) {
      for (const problem of validateHistory(agent.history))
        between.push(`${event.type}: ${problem.detail}`);
      if (event.type !== 'run-end') expect(agent.history).toHaveLength(3);
    }
    expect(between).toEqual([]);
    expect(seen.map((history) => history.length)).toEqual([3]);
    expect(validateHistory(seen[0] ?? [])).toEqual([]);
    expect(agent.history).toHaveLength(6);
  });
});
