// Regression (review of the durable change): a durable run replaying a \`journalStart\` that another
// writer's claim refuses must not take that claim as its own and run the call a second time.
import { type Message, SessionConflictError, type SessionStore, userMessage } from '@mh/core';
import { MemoryStepRunner, ScriptedProvider, type ScriptedTurn } from '@mh/core/testing';
import { defineTool } from '@mh/tools';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import { openTempStore } from './temp-sqlite-store.js';

const SCRIPT: readonly ScriptedTurn[] = [
  { toolCalls: [{ id: 'w1', name: 'save', input: { note: 'a' } }] },
  { text: 'saved' },
];
const provider = () =>
  new ScriptedProvider(
    (_i, req) =>
      SCRIPT[
        Math.min(1, req.messages.filter((m) => m.role === 'assistant').length)
      ] as ScriptedTurn,
  );

function agent(
  store: SessionStore,
  steps: MemoryStepRunner,
  saves: Map<string, number>,
  gate?: Promise<void>,
  entered?: () => void,
) {
  let first = true;
  const save = defineTool({
    name: 'save',
    description: 'saves',
    permission: 'write',
    input: z.object({ note: z.string() }),
    run: async ({ note }) => {
      saves.set(note, (saves.get(note) ?? 0) + 1);
      if (gate && first) {
        first = false;
        entered?.();
        await gate;
      }
      return `saved ${note}`;
    },
  });
  return new Agent({
    provider: provider(),
    model: 'claude-sonnet-4-5',
    tools: [save],
    permissions: { grants: ['write'] },
    fencing: { boundary: 'untrusted-durable' },
    session: { store, id: 's1' },
    steps,
  });
}

it("runs a claimed call once when two durable runs write one session (a takeover clears the queue's dedup id)", async () => {
  const { store, remove } = await openTempStore('mh-ownclaim-');
  try {
    const saves = new Map<string, number>();
    const PROMPT: Message = userMessage('save a', 'prompt-1');
    // W1 dies right before its journalStart body: the turn is journaled, w1 not started.
    const probe = new MemoryStepRunner('probe');
    const { store: s2, remove: r2 } = await openTempStore('mh-probe-');
    await agent(s2, probe, new Map()).run(PROMPT);
    await r2();
    const at = probe.log.findIndex((s) => s.name === 'store:journalStart');
    const crashed = new MemoryStepRunner('wf-1', [], { at, when: 'before' });
    await agent(store, crashed, saves)
      .run(PROMPT)
      .catch(() => undefined);
    // W2: a second run on the session (its dedup id was cleared by resumeWorkflows) recovers the
    // pending turn and runs w1; it is mid-call when W1's replay reaches journalStart.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inTool = new Promise<void>((r) => (entered = r));
    const w2 = agent(store, new MemoryStepRunner('wf-2'), saves, gate, entered).run(
      userMessage('next', 'prompt-2'),
    );
    await inTool;
    const replay = new MemoryStepRunner('wf-1', crashed.log);
    const replayed = await agent(store, replay, saves).run(PROMPT);
    // The replay finds the call claimed by another writer: it ends with the conflict.
    expect(replayed.status).toBe('error');
    expect(SessionConflictError.isInstance(replayed.error)).toBe(true);
    release();
    // The other writer finishes its call; its own commit may then meet the replay's settled
    // history (two writers on one session: the compare-and-set fails one of them).
    const other = await w2;
    expect(other.status === 'completed' || SessionConflictError.isInstance(other.error)).toBe(true);
    expect(saves.get('a')).toBe(1);
  } finally {
    await remove();
  }
});
