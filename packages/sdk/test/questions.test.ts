import {
  ConfigError,
  type QuestionInterrupt,
  type RunResult,
  SessionConflictError,
  type SessionStore,
  toolResultsOf,
  toolResultText,
  validateHistory,
} from '@mh/core';
import { ScriptedProvider, type ScriptedTurn } from '@mh/core/testing';
import { defineTool } from '@mh/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import type { AgentOptions } from '../src/agent-options.js';
import { MemorySessionStore } from './memory-session-store.js';
import { openTempStore } from './temp-sqlite-store.js';

/** Every effect of `deploy` (after its questions) and every run of `look`. */
let effects: string[];
let store: SessionStore;
let remove: () => Promise<void>;

beforeEach(async () => {
  effects = [];
  ({ store, remove } = await openTempStore('mh-questions-'));
});
afterEach(() => remove());

/** Asks where (a region), then when (an hour), then deploys: the effect comes after both. */
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys the app',
  input: z.object({ app: z.string() }),
  permission: 'write',
  run: async ({ app }, context) => {
    const region = await context.interrupt?.({
      question: `Which region for ${app}?`,
      schema: { type: 'string', enum: ['eu', 'us'] },
    });
    const hour = await context.interrupt?.({
      question: 'At what hour?',
      schema: { type: 'integer' },
    });
    effects.push(`deploy ${app} ${String(region)} ${String(hour)}`);
    return `deployed ${app} to ${String(region)} at ${String(hour)}`;
  },
});
const look = defineTool({
  name: 'look',
  description: 'Looks',
  input: z.object({}),
  permission: 'read',
  run: async () => {
    effects.push('look');
    return 'seen';
  },
});
const note = defineTool({
  name: 'note',
  description: 'Writes a note',
  input: z.object({}),
  permission: 'write',
  run: async () => {
    effects.push('note');
    return 'noted';
  },
});
const gated = defineTool({
  name: 'gated',
  description: 'Needs approval',
  input: z.object({}),
  permission: 'write',
  needsApproval: true,
  run: async () => {
    effects.push('gated');
    return 'gated ran';
  },
});

const call = (name: string, id: string, input: unknown = {}) => ({ id, name, input });
const deployCall = call('deploy', 'd1', { app: 'shop' });
const script = (first: ScriptedTurn['toolCalls']): ScriptedTurn[] => [
  { toolCalls: first },
  { text: 'done' },
  { text: 'again' },
];

function agent(provider: ScriptedProvider, extra: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    provider,
    model: 'm',
    tools: [deploy, look, note, gated],
    permissions: { grants: ['write'] },
    ...extra,
  });
}

/** The texts of the last tool results, without the untrusted-data fence around a tool's output. */
function lastResults(result: RunResult | undefined): string[] {
  const message = result?.messages.findLast((entry) => toolResultsOf(entry).length > 0);
  const texts = message ? toolResultsOf(message).map(toolResultText) : [];
  return texts.map(
    (text) => text.match(/^<<<untrusted-\w+\n([\s\S]*)\nuntrusted-\w+>>>$/m)?.[1] ?? text,
  );
}

/** The first interrupt of `result`, which must be a question. */
function questionOf(result: RunResult | undefined): QuestionInterrupt {
  const [first] = result?.interrupts ?? [];
  if (first?.kind !== 'question')
    throw new Error(`expected a question, got ${JSON.stringify(first)}`);
  return first;
}

const fieldOf = (error: unknown): string | undefined =>
  ConfigError.isInstance(error) ? error.field : undefined;

describe('a tool that asks (ctx.interrupt), in one process', () => {
  it('ends the run interrupted with a question; each answer runs the call again until it finishes', async () => {
    const mh = agent(new ScriptedProvider(script([deployCall])));
    const first = await mh.run('Deploy the shop');
    expect(first.status).toBe('interrupted');
    expect(first.interrupts).toEqual([
      {
        kind: 'question',
        callId: 'd1',
        tool: 'deploy',
        input: { app: 'shop' },
        permission: 'write',
        reason: 'Which region for shop?',
        question: 'Which region for shop?',
        schema: { type: 'string', enum: ['eu', 'us'] },
        answers: [],
      },
    ]);
    expect(validateHistory(mh.history)).toEqual([]);
    const second = await mh.resume({ decisions: [{ callId: 'd1', answer: 'eu' }] });
    expect(second?.status).toBe('interrupted');
    const asked = questionOf(second);
    expect([asked.question, asked.answers]).toEqual(['At what hour?', ['eu']]);
    expect(effects).toEqual([]);
    const done = await mh.resume({ decisions: [{ callId: 'd1', answer: 9 }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['deploy shop eu 9']);
    expect(lastResults(done)).toEqual(['deployed shop to eu at 9']);
    expect(validateHistory(mh.history)).toEqual([]);
  });

  it('runs the reads of the turn, and writes after the asking call only once it is answered', async () => {
    const mh = agent(
      new ScriptedProvider(script([deployCall, call('note', 'n1'), call('look', 'l1')])),
    );
    const first = await mh.run('Deploy and note');
    expect(first.status).toBe('interrupted');
    expect(effects).toEqual(['look']);
    expect(first.pendingTurn?.results.map((block) => block.toolUseId)).toEqual(['l1']);
    await mh.resume({ decisions: [{ callId: 'd1', answer: 'us' }] });
    const done = await mh.resume({ decisions: [{ callId: 'd1', answer: 7 }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['look', 'deploy shop us 7', 'note']);
    expect(lastResults(done)).toEqual(['deployed shop to us at 7', 'noted', 'seen']);
  });

  it('stays interrupted, running nothing, while the question has no answer', async () => {
    const mh = agent(new ScriptedProvider(script([deployCall])));
    await mh.run('Deploy');
    const still = await mh.resume();
    expect(still?.status).toBe('interrupted');
    expect(still?.interrupts?.map((interrupt) => interrupt.kind)).toEqual(['question']);
    expect(effects).toEqual([]);
  });

  it('refuses an approval for a question, an answer for an approval, and a bad answer, naming the field', async () => {
    const mh = agent(new ScriptedProvider(script([deployCall, call('gated', 'g1')])));
    const first = await mh.run('Deploy and gate');
    expect(first.interrupts?.map((interrupt) => [interrupt.kind, interrupt.callId])).toEqual([
      ['question', 'd1'],
      ['approval', 'g1'],
    ]);
    const attempts: [unknown[], string][] = [
      [[{ callId: 'd1', approve: true }], 'options.decisions[0].approve'],
      [[{ callId: 'g1', answer: 'eu' }], 'options.decisions[0].answer'],
      [[{ callId: 'd1', answer: 'mars' }], 'options.decisions[0].answer'],
      [[{ callId: 'd1', answer: () => 'eu' }], 'options.decisions[0].answer'],
      [[{ callId: 'd1', answer: 'eu', approve: true }], 'options.decisions[0].approve'],
      [[{ callId: 'nope', answer: 'eu' }], 'options.decisions[0].callId'],
    ];
    for (const [decisions, field] of attempts) {
      const error = await mh.resume({ decisions: decisions as never }).catch((e: unknown) => e);
      expect(fieldOf(error), JSON.stringify(decisions)).toBe(field);
    }
    expect(effects).toEqual([]);
    const resumed = await mh.resume({
      decisions: [
        { callId: 'd1', answer: 'eu' },
        { callId: 'g1', approve: false, message: 'no' },
      ],
    });
    expect(resumed?.status).toBe('interrupted');
    // The denial stands while the call asks its next question.
    const done = await mh.resume({ decisions: [{ callId: 'd1', answer: 1 }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['deploy shop eu 1']);
    expect(lastResults(done)[1]).toBe('Not run: the user denied this call: no');
  });

  it('answers the asking call as stopped when a new prompt comes instead', async () => {
    const mh = agent(new ScriptedProvider(script([deployCall])));
    await mh.run('Deploy');
    const next = await mh.run('Never mind');
    expect(next.status).toBe('completed');
    const results = mh.history.flatMap(toolResultsOf).map(toolResultText);
    expect(results).toEqual([
      'Stopped: deploy asked the user "Which region for shop?" and the user sent a new message instead of answering.',
    ]);
    expect(effects).toEqual([]);
  });
});

describe('a tool that asks, with a session', () => {
  it('keeps the question and the answers given in the store: new agents answer it, and it runs once', async () => {
    const options = { session: { store, id: 'q1' } };
    const first = await agent(new ScriptedProvider(script([deployCall])), options).run('Deploy');
    expect(first.status).toBe('interrupted');
    const second = await agent(new ScriptedProvider([]), options).resume({
      decisions: [{ callId: 'd1', answer: 'us' }],
    });
    expect(questionOf(second).answers).toEqual(['us']);
    // A third agent sees the second question with the first answer, from the store alone.
    const third = agent(new ScriptedProvider([{ text: 'done' }]), options);
    const still = await third.resume();
    expect(questionOf(still).question).toBe('At what hour?');
    const done = await third.resume({ decisions: [{ callId: 'd1', answer: 5 }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['deploy shop us 5']);
    const stored = await store.load('q1');
    expect(validateHistory(stored.messages)).toEqual([]);
    expect(await store.pendingTurn('q1', 'main')).toBeUndefined();
  });

  it('works on any SessionStore (the in-memory one of these tests)', async () => {
    const memory = new MemorySessionStore();
    const options = { session: { store: memory, id: 'm1' } };
    await agent(new ScriptedProvider(script([deployCall])), options).run('Deploy');
    const mh = agent(new ScriptedProvider([{ text: 'done' }]), options);
    await mh.resume({ decisions: [{ callId: 'd1', answer: 'eu' }] });
    const done = await mh.resume({ decisions: [{ callId: 'd1', answer: 2 }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['deploy shop eu 2']);
  });

  it('runs an answered call once when two agents resume at the same time (50 races)', async () => {
    let typed = 0;
    for (let race = 0; race < 50; race++) {
      effects = [];
      const options = { session: { store, id: `race-${race}` } };
      await agent(new ScriptedProvider(script([deployCall])), options).run('Deploy');
      await agent(new ScriptedProvider([]), options).resume({
        decisions: [{ callId: 'd1', answer: 'eu' }],
      });
      const outcomes = await Promise.all(
        [3, 4].map((hour) =>
          agent(new ScriptedProvider([{ text: 'done' }]), options)
            .resume({ decisions: [{ callId: 'd1', answer: hour }] })
            .then(
              (result) => result?.error ?? result?.status,
              (error: unknown) => error,
            ),
        ),
      );
      for (const outcome of outcomes) {
        if (outcome === 'completed') continue;
        if (
          SessionConflictError.isInstance(outcome) ||
          (ConfigError.isInstance(outcome) && outcome.field.startsWith('options.decisions'))
        )
          typed++;
      }
      expect(outcomes.filter((outcome) => outcome === 'completed')).toHaveLength(1);
      expect(effects).toHaveLength(1);
    }
    expect(typed).toBe(50);
  }, 120_000);
});

describe('signed questions (approvalKey)', () => {
  const approvalKey = 'a-secret-from-configuration-0123456789';

  it('signs each question with its answers so far; a token of an earlier question is refused', async () => {
    const mh = agent(new ScriptedProvider(script([deployCall])), { approvalKey });
    const first = await mh.run('Deploy');
    const one = questionOf(first);
    expect(typeof one.token).toBe('string');
    const missing = await mh
      .resume({ decisions: [{ callId: 'd1', answer: 'eu' }] })
      .catch((e: unknown) => e);
    expect(fieldOf(missing)).toBe('options.decisions[0].token');
    const second = await mh.resume({
      decisions: [{ callId: 'd1', answer: 'eu', token: one.token }],
    });
    const two = questionOf(second);
    expect(two.token).not.toBe(one.token);
    const replayed = await mh
      .resume({ decisions: [{ callId: 'd1', answer: 3, token: one.token }] })
      .catch((e: unknown) => e);
    expect(fieldOf(replayed)).toBe('options.decisions[0].token');
    const done = await mh.resume({ decisions: [{ callId: 'd1', answer: 3, token: two.token }] });
    expect(done?.status).toBe('completed');
    expect(effects).toEqual(['deploy shop eu 3']);
  });
});
