import { type Message, type SessionStore, validateHistory } from '@mh/core';
import { scripted } from '@mh/providers';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore } from './temp-sqlite-store.js';

/**
 * A store written against the port before `CommitOptions.pendingTurn` ignores the option, and its
 * commit clears a journaled turn. A review of 83a2bb5 found that the Agent, no longer reading the
 * journal before a prompt, then lost such a turn: the turn, and the result of a tool whose side
 * effect ran, vanished from the history. The Agent now skips the read only for a store that says
 * `refusesPendingTurn`.
 */
let store: SessionStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  const opened = await openTempStore('mh-review1-');
  remove = opened.remove;
  // A store that predates `CommitOptions.pendingTurn`: it drops the option (clears, as commit did)
  // and does not say `refusesPendingTurn`.
  store = new Proxy(opened.store, {
    get(target, key, receiver) {
      if (key === 'refusesPendingTurn') return undefined;
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
  it('keeps a journaled turn whose tool ran when a new prompt comes', async () => {
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
    // The sent message is recorded: the model must know `send` ran, and it did not run again.
    expect(messages.map((message) => message.id)).toContain('theirs');
    expect(ran).toEqual([]);
  });
});
