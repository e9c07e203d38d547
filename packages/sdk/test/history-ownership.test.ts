import { ConfigError, type Message } from '@mh/core';
import { scripted } from '@mh/providers';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';

// A conversation's next run appends to the history the agent keeps, in place, so a run costs what
// it adds and not the length of the conversation. What the agent has handed out — a run's
// `messages`, `agent.history` — must not change under the caller when later runs append.

const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);

function chatAgent(): Agent {
  return new Agent({
    provider: scripted([{ text: 'ok' }], { whenExhausted: 'repeat-last' }),
    model: 'claude-sonnet-4-5',
  });
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
});
