import type { Message, ModelRequest, StreamEvent } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { promptsOf } from './agent-model.js';
import { runAgentConformance } from './run-agent-conformance.js';
import { ScriptedModel } from './scripted-model.js';

const user = (text: string): Message => ({
  id: text,
  role: 'user',
  content: [{ type: 'text', text }],
});
const assistant = (text: string): Message => ({
  id: `a-${text}`,
  role: 'assistant',
  content: [{ type: 'text', text }],
});

async function ask(model: ScriptedModel, messages: Message[]): Promise<Message> {
  const request: ModelRequest = { model: 'm', messages, tools: [] };
  let message: Message | undefined;
  for await (const event of model.stream(request) as AsyncIterable<StreamEvent>) {
    if (event.type === 'message-end') message = event.message;
  }
  if (!message) throw new Error('no message-end');
  return message;
}

describe('runAgentConformance', () => {
  it.each([
    ['store', { createAgent: () => ({}) }],
    ['createAgent', { store: { commit: () => {} } }],
    ['numRuns', { store: { commit: () => {} }, createAgent: () => ({}), numRuns: 0 }],
    ['crash', { store: { commit: () => {} }, createAgent: () => ({}), crash: 'x' }],
    ['reopen', { store: { commit: () => {} }, createAgent: () => ({}), reopen: 1 }],
  ])('refuses bad options with a ConfigError naming %s', async (field, options) => {
    expect(await fieldOf(() => runAgentConformance(options as never))).toBe(field);
  });
});

describe('promptsOf', () => {
  it('reads prompts in order and which were answered', () => {
    const history = [user('P0 please'), assistant('answer to P0'), user('P1 please')];
    expect(promptsOf(history)).toEqual([
      { label: 'P0', answered: true },
      { label: 'P1', answered: false },
    ]);
  });

  it('reports a prompt answered twice', () => {
    const history = [user('P0 please'), assistant('answer to P0'), assistant('answer to P0')];
    expect(() => promptsOf(history)).toThrow(/answered 2 times/);
  });
});

describe('ScriptedModel', () => {
  it('makes the planned calls turn by turn, then answers, counting its calls', async () => {
    const model = new ScriptedModel('t');
    model.plan('P3', [[{ tool: 'send_once' }], [{ tool: 'read_note' }, { tool: 'put_note' }]]);
    const first = await ask(model, [user('P3 please')]);
    expect(first.content.map((block) => block.type === 'tool_use' && block.name)).toEqual([
      'send_once',
    ]);
    const second = await ask(model, [user('P3 please')]);
    expect(second.content).toHaveLength(2);
    const third = await ask(model, [user('Summary: … P3 please')]);
    expect(third.content).toEqual([{ type: 'text', text: 'answer to P3' }]);
    expect(model.calls).toBe(3);
  });

  it('hangs the chosen call until aborted', async () => {
    const model = new ScriptedModel('t');
    const reached = model.hangAt(0, true);
    const controller = new AbortController();
    const stream = model.stream(
      { model: 'm', messages: [user('P0 please')], tools: [] },
      {
        signal: controller.signal,
      },
    );
    const consumed = (async () => {
      for await (const _event of stream) {
        // drain until the abort ends it
      }
    })();
    await reached;
    controller.abort();
    await expect(consumed).rejects.toThrow(/aborted/);
  });
});
