import {
  type Message,
  messageText,
  SessionConflictError,
  type SessionStore,
  userMessage,
} from '@mh/core';
import {
  MemoryStepRunner,
  type RecordedStep,
  ScriptedProvider,
  type ScriptedTurn,
} from '@mh/core/testing';
import { defineTool } from '@mh/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore } from './temp-sqlite-store.js';

/**
 * A durable Agent (`AgentOptions.steps`) over a real SQLite session, killed at every step it
 * takes: before the step's body, and after it but before the engine recorded it. A new Agent on
 * a new step runner replays the record against the same store, as another worker would. The
 * session must end holding what a crash-free run leaves, no recorded model call is made again,
 * and the non-idempotent tool runs at most once per call.
 */
const SCRIPT: readonly ScriptedTurn[] = [
  {
    toolCalls: [
      { id: 'w1', name: 'save', input: { note: 'a' } },
      { id: 'r1', name: 'lookup', input: {} },
    ],
  },
  { toolCalls: [{ id: 'w2', name: 'save', input: { note: 'b' } }] },
  { text: 'saved both' },
];

/** Answers by the turn the request is at, however many calls were made before. */
const provider = (): ScriptedProvider =>
  new ScriptedProvider(
    (_index, request) =>
      SCRIPT[request.messages.filter((m) => m.role === 'assistant').length] as ScriptedTurn,
  );

function agent(
  store: SessionStore,
  model: ScriptedProvider,
  steps: MemoryStepRunner,
  saves: Map<string, number>,
): Agent {
  const save = defineTool({
    name: 'save',
    description: 'saves a note',
    permission: 'write',
    input: z.object({ note: z.string() }),
    run: async ({ note }) => {
      saves.set(note, (saves.get(note) ?? 0) + 1);
      return `saved ${note}`;
    },
  });
  const lookup = defineTool({
    name: 'lookup',
    description: 'reads',
    permission: 'read',
    input: z.object({}),
    run: async () => 'found',
  });
  return new Agent({
    provider: model,
    model: 'claude-sonnet-4-5',
    tools: [save, lookup],
    permissions: { grants: ['read', 'write'] },
    fencing: { boundary: 'untrusted-durable' },
    session: { store, id: 's1' },
    steps,
  });
}

const PROMPT: Message = userMessage('save a and b', 'prompt-1');
const texts = (messages: readonly Message[]): string[] =>
  messages.map((message) => `${message.role}:${messageText(message)}`);

let baselineSteps: readonly RecordedStep[];
let baselineTexts: string[];

beforeAll(async () => {
  const { store, remove } = await openTempStore('mh-durable-base-');
  try {
    const steps = new MemoryStepRunner('wf-1');
    const result = await agent(store, provider(), steps, new Map()).run(PROMPT);
    expect(result.status).toBe('completed');
    baselineSteps = steps.log;
    baselineTexts = texts((await store.load('s1')).messages);
  } finally {
    await remove();
  }
});

describe('a durable Agent over a SQLite session', () => {
  it('takes every store call, model call, claim and tool call as a named step', () => {
    const names = baselineSteps.map((step) => step.name);
    expect(names.filter((name) => name === 'model')).toHaveLength(3);
    expect(names.filter((name) => name === 'claim:save')).toHaveLength(2);
    expect(names).toContain('store:commit');
    expect(names).toContain('store:journalStart');
    // The read needs no claim: it may run again.
    expect(names).not.toContain('claim:lookup');
    expect(baselineTexts.at(-1)).toBe('assistant:saved both');
  });

  it('recovers from a crash at any step, before or after its body', async () => {
    const points = baselineSteps.length;
    expect(points).toBeGreaterThan(10);
    let cutSaves = 0;
    let conflicts = 0;
    for (let at = 0; at < points; at++) {
      for (const when of ['before', 'after'] as const) {
        const { store, remove } = await openTempStore('mh-durable-');
        try {
          const saves = new Map<string, number>();
          const crashed = new MemoryStepRunner('wf-1', [], { at, when });
          await agent(store, provider(), crashed, saves)
            .run(PROMPT)
            .catch(() => undefined);
          const model = provider();
          const replay = new MemoryStepRunner('wf-1', crashed.log);
          const result = await agent(store, model, replay, saves).run(PROMPT);
          const where = `crash ${when} step ${at} (${baselineSteps[at]?.name})`;
          for (const count of saves.values()) expect(count, where).toBe(1);
          if (when === 'after' && baselineSteps[at]?.name === 'store:journalStart') {
            // The claim landed but was not recorded: run again, it finds the call claimed and the
            // store cannot tell by whom, so the run ends with the conflict; the call never ran.
            conflicts++;
            expect(result.status, where).toBe('error');
            expect(SessionConflictError.isInstance(result.error), where).toBe(true);
            // A plain resume of the session finishes it: the claimed call is answered as interrupted.
            const resumed = await new Agent({
              provider: provider(),
              model: 'claude-sonnet-4-5',
              session: { store, id: 's1' },
              fencing: false,
            }).resume();
            expect(resumed?.status, where).toBe('completed');
            expect(JSON.stringify((await store.load('s1')).messages), where).toMatch(/interrupted/);
            continue;
          }
          expect(result.status, where).toBe('completed');
          const recordedModelCalls = crashed.log.filter((step) => step.name === 'model').length;
          expect(model.calls, where).toBe(3 - recordedModelCalls);
          const messages = (await store.load('s1')).messages;
          const cut = baselineSteps[at]?.name === 'tool:save';
          if (cut) {
            cutSaves++;
            expect(JSON.stringify(messages), where).toMatch(/outcome of this call is unknown/);
          } else expect(texts(messages), where).toEqual(baselineTexts);
          expect(JSON.stringify(messages), where).not.toMatch(/interrupted/);
          expect(result.text, where).toBe('saved both');
        } finally {
          await remove();
        }
      }
    }
    // Both saves were cut, before and after their body; both claims were cut after theirs.
    expect(cutSaves).toBe(4);
    expect(conflicts).toBe(2);
  }, 120_000);
});

describe('a durable Agent refuses what a replay cannot repeat', () => {
  const save = defineTool({
    name: 'save',
    description: 'saves',
    permission: 'write',
    input: z.object({}),
    run: async () => 'saved',
  });
  const base = { provider: provider(), model: 'm', steps: new MemoryStepRunner('wf-x') };

  it('a wall-clock timeout, on the agent or on a run', async () => {
    expect(() => new Agent({ ...base, limits: { timeoutMs: 1000 } })).toThrow(
      expect.objectContaining({ field: 'limits.timeoutMs' }),
    );
    await expect(new Agent(base).run('hi', { limits: { timeoutMs: 1000 } })).rejects.toMatchObject({
      field: 'options.limits.timeoutMs',
    });
  });

  it('a fence boundary drawn at random (with tools)', () => {
    expect(() => new Agent({ ...base, tools: [save] })).toThrow(
      expect.objectContaining({ field: 'fencing' }),
    );
    expect(() => new Agent({ ...base, tools: [save], fencing: true })).toThrow(
      expect.objectContaining({ field: 'fencing' }),
    );
    expect(() => new Agent({ ...base, tools: [save], fencing: false })).not.toThrow();
    expect(
      () => new Agent({ ...base, tools: [save], fencing: { boundary: 'untrusted-fixed' } }),
    ).not.toThrow();
  });
});
