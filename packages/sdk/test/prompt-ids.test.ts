import { ConfigError, type Message, userMessage } from '@mh/core';
import { scripted } from '@mh/providers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { openTempStore } from './temp-sqlite-store.js';

// A prompt whose id the conversation already holds is refused (`prompt.id`), whether the message
// is in the agent's view or only stored. With a session, only the messages the store does not
// hold yet are scanned, so the check costs the same at turn 10 and turn 10,000.

let opened: Awaited<ReturnType<typeof openTempStore>>;
beforeEach(async () => {
  opened = await openTempStore('mh-prompt-ids-');
});
afterEach(() => opened.remove());

const refusal = async (run: Promise<unknown>): Promise<string | undefined> => {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return ConfigError.isInstance(error) ? error.field : String(error);
};

describe('a prompt id already in the conversation', () => {
  it.each([false, true])('is refused, old or newest (session: %s)', async (withSession) => {
    const agent = new Agent({
      provider: scripted([{ text: 'ok' }], { whenExhausted: 'repeat-last' }),
      model: 'claude-sonnet-4-5',
      ...(withSession ? { session: { store: opened.store, id: 's' } } : {}),
    });
    const prompts: Message[] = [];
    for (let n = 0; n < 6; n++) {
      const prompt = userMessage(`question ${n}`);
      prompts.push(prompt);
      expect((await agent.run(prompt)).status).toBe('completed');
    }
    const before = agent.history.map((message) => message.id);
    for (const repeated of [prompts[0], prompts[3], prompts[5]] as Message[]) {
      expect(await refusal(agent.run(repeated))).toBe('prompt.id');
    }
    expect(agent.history.map((message) => message.id)).toEqual(before);
    // A fresh id is still taken.
    expect((await agent.run(userMessage('question 6'))).status).toBe('completed');
  });

  it('is refused when only the store holds it (another agent on the session)', async () => {
    const make = () =>
      new Agent({
        provider: scripted([{ text: 'ok' }], { whenExhausted: 'repeat-last' }),
        model: 'claude-sonnet-4-5',
        session: { store: opened.store, id: 's' },
      });
    const first = make();
    const prompt = userMessage('shared');
    await first.run(prompt);
    const second = make();
    expect(await refusal(second.run(prompt))).toBe('prompt.id');
  });
});
