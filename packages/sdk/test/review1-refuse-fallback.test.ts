import { type Message, type SessionStore, validateHistory } from '@mh/core';
import { scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore } from './temp-sqlite-store.js';

/**
 * Review of 83a2bb5: a third-party store written against the port before `pendingTurn` existed
 * ignores the option (it is optional, and nothing tells the Agent the store does not honour it).
 * Before 83a2bb5 the Agent read `pendingTurn()` and finished the journaled turn before a new
 * prompt; now the prompt's commit silently clears it: the turn, and the result of a tool whose
 * side effect ran, vanish from the history.
 */
let store: SessionStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  const opened = await openTempStore('mh-review1-');
  remove = opened.remove;
  // A store that predates `CommitOptions.pendingTurn`: it drops the option (clears, as commit did).
  store = new Proxy(opened.store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      if (key === 'commit')
        return (id: string, turn: never, options: Record<string, unknown>) => {
          const { pendingTurn: _ignored, ...rest } = options;
          return value.call(target, id, turn, rest);
        };
      return (...args: unknown[]) => value.apply(target, args);
    },
  });
});

afterEach(() => remove());

const ran: string[] = [];
const send = defineTool({
  name: 'send',
  description: 'send',
  permission: 'write',
  input: z.object({}),
  run: async (_input, context) => {
    ran.push(context.callId);
    return 'sent';
  },
});

describe('a store that ignores pendingTurn (third-party, older port)', () => {
  // Fails since 83a2bb5: the Agent no longer reads the journal before a prompt.
  it.fails('keeps a journaled turn whose tool ran when a new prompt comes (as before 83a2bb5)', async () => {
    const agent = new Agent({
      provider: scripted([{ text: 'first' }, { text: 'second' }]),
      model: 'claude-sonnet-4-5',
      tools: [send],
      permissions: { grants: ['write'] },
      session: { store, id: 's1' },
    });
    await agent.run('one');
    // A process journals a turn on this head, runs `send` to the end and dies before committing.
    const { head } = await store.load('s1');
    const assistant: Message = {
      id: 'theirs',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'x1', name: 'send', input: {} }],
    };
    await store.journalTurn('s1', 'main', head, assistant);
    await store.journalStart('s1', 'main', 'x1');
    await store.journalEnd('s1', 'main', 'x1', {
      type: 'tool_result',
      toolUseId: 'x1',
      content: [{ type: 'text', text: 'sent' }],
      isError: false,
    });
    expect((await agent.run('two')).status).toBe('completed');
    const { messages } = await store.load('s1');
    expect(validateHistory(messages)).toEqual([]);
    // The sent message is recorded: the model must know `send` ran.
    expect(messages.map((message) => message.id)).toContain('theirs');
  });
});
