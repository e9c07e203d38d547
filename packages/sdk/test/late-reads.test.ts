import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentEvent,
  type Message,
  type ModelRequest,
  messageText,
  type RunResult,
  type SessionStore,
  validateHistory,
} from '@mh/core';
import { ScriptedProvider, type ScriptedTurn } from '@mh/core/testing';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool } from '@mh/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';
import type { AgentOptions } from '../src/agent-options.js';

// The agent lends its history to each run (the run appends to it in place): every result here is
// read only after later runs, compared with the agent's history as it was right after that run (a
// deep copy), then vandalised; the conversation must go on valid, with nothing lost or duplicated.
// Every way a run can end is covered, without a session and with a SQLite one.

const ids = (messages: readonly Message[]): string[] => messages.map((message) => message.id);
const deep = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

let controller: AbortController | undefined;

const echo = defineTool({
  name: 'echo',
  description: 'Echoes',
  input: z.object({ v: z.string() }),
  permission: 'read',
  run: ({ v }) => `echo ${v}`,
});
const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes',
  input: z.object({ path: z.string() }),
  permission: 'write',
  needsApproval: () => true,
  run: ({ path }) => `wrote ${path}`,
});
const slow = defineTool({
  name: 'slow',
  description: 'Waits until cancelled',
  input: z.object({}),
  permission: 'read',
  run: (_input, context) =>
    new Promise<string>((_resolve, reject) => {
      context.signal?.addEventListener('abort', () => reject(context.signal?.reason));
      controller?.abort();
    }),
});

const City = z.object({ city: z.string(), population: z.number().int() });

/** A model that acts on the last prompt's text. */
function brain(): ScriptedProvider {
  return new ScriptedProvider(
    (_index, request): ScriptedTurn => {
      const usage = {
        inputTokens: Math.ceil(JSON.stringify(request.messages).length / 3.5),
        outputTokens: 10,
      };
      if (request.purpose === 'summary') return { text: 'summary so far', usage };
      const last = request.messages.at(-1) as Message;
      if (last.content.some((block) => block.type === 'tool_result')) {
        const prompt = request.messages.findLast(
          (m) => m.role === 'user' && !m.content.some((b) => b.type === 'tool_result'),
        );
        if (prompt && messageText(prompt).startsWith('boom'))
          return { text: 'half', error: new Error('boom'), eventsBeforeStop: 2 };
        return { text: 'done', usage };
      }
      const previous = request.messages.at(-2);
      if (previous && messageText(previous) === '{"city":"Paris"}')
        return { text: '{"city":"Paris","population":2}', usage };
      const text = messageText(last);
      if (text.startsWith('tool') || text.startsWith('boom'))
        return { toolCalls: [{ name: 'echo', input: { v: text } }], usage };
      if (text.startsWith('write'))
        return { toolCalls: [{ name: 'write_file', input: { path: text } }], usage };
      if (text.startsWith('slow')) return { toolCalls: [{ name: 'slow', input: {} }], usage };
      if (text.startsWith('hang')) return { text: 'partial', hang: 'until-aborted' };
      if (text.startsWith('json')) return { text: '{"city":"Paris"}', usage };
      return { text: `ok ${text}`, usage };
    },
    { nativeOutput: true },
  );
}

function makeAgent(extra: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    provider: brain(),
    model: 'claude-sonnet-4-5',
    tools: [echo, writeFile, slow],
    permissions: { grants: ['read', 'write'] },
    ...extra,
  });
}

/** Each result (read late) with a deep copy of the agent's history taken right after its run. */
type Entry = {
  readonly label: string;
  readonly result: RunResult;
  readonly after: readonly Message[];
};

function sound(history: readonly Message[]): void {
  expect(validateHistory(history)).toEqual([]);
  expect(new Set(ids(history)).size).toBe(history.length);
}

async function drive(
  agent: Agent,
  entries: Entry[],
  label: string,
  run: Promise<RunResult | undefined>,
) {
  const result = await run;
  if (result) entries.push({ label, result, after: deep(agent.history) });
  sound(agent.history);
  return result;
}

/** Every scenario of the brief, in one conversation; nothing reads a result until the end. */
async function everything(agent: Agent, entries: Entry[]): Promise<void> {
  await drive(agent, entries, 'text', agent.run('hello'));
  await drive(agent, entries, 'tool', agent.run('tool one'));
  await drive(
    agent,
    entries,
    'typed',
    agent.run('json please', { output: { schema: City, maxRetries: 2 } }),
  );
  // Cancel in a tool (the tool aborts the run's signal).
  controller = new AbortController();
  await drive(agent, entries, 'cancel-tool', agent.run('slow one', { signal: controller.signal }));
  // Cancel while the model streams (ends awaiting an answer: a cancel mark).
  controller = new AbortController();
  const hang = controller;
  const hangRun = (async () => {
    let result: RunResult | undefined;
    for await (const event of agent.stream('hang on', { signal: hang.signal })) {
      if (event.type === 'turn-start') setTimeout(() => hang.abort(), 20);
      if (event.type === 'run-end') result = event.result;
    }
    return result;
  })();
  await drive(agent, entries, 'cancel-stream', hangRun);
  // A consumer that stops iterating mid-tool-turn.
  for await (const event of agent.stream('tool abandoned'))
    if (event.type === 'tool-execution-start') break;
  sound(agent.history);
  await drive(agent, entries, 'after-abandon', agent.run('tool two'));
  // Interrupt, resume without a decision (still interrupted), approve.
  const interrupted = await drive(agent, entries, 'interrupt', agent.run('write a.txt'));
  expect(interrupted?.status).toBe('interrupted');
  const callId = interrupted?.interrupts?.[0]?.callId as string;
  await drive(agent, entries, 'resume', agent.resume({ decisions: [{ callId, approve: true }] }));
  // Interrupt, then a new prompt instead of a resume.
  const again = await drive(agent, entries, 'interrupt-2', agent.run('write b.txt'));
  expect(again?.status).toBe('interrupted');
  await drive(agent, entries, 'moved-on', agent.run('tool three'));
  await drive(agent, entries, 'text-2', agent.run('bye'));
}

/** Reads each result late, compares it with the copy taken after its run, then vandalises it. */
function readLate(entries: Entry[]): void {
  for (const { label, result, after } of entries) {
    expect({ label, messages: deep(result.messages) }).toEqual({ label, messages: after });
  }
  for (const { result } of entries) {
    const messages = result.messages as Message[];
    messages.reverse();
    messages[0] = { id: 'vandal', role: 'assistant', content: [{ type: 'text', text: 'x' }] };
    messages.splice(1, 2);
    messages.sort();
    messages.length = 1;
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('results read only after later runs (no session)', () => {
  it('each result still shows what its run left; the conversation goes on sound', async () => {
    const agent = makeAgent();
    const entries: Entry[] = [];
    await everything(agent, entries);
    // Nothing lost: each run's history is a prefix of the next one's (no compaction here).
    for (let k = 1; k < entries.length; k++) {
      const earlier = ids(entries[k - 1]?.after ?? []);
      expect(ids(entries[k]?.after ?? []).slice(0, earlier.length)).toEqual(earlier);
    }
    const before = deep(agent.history);
    readLate(entries);
    // The agent's history copies may be changed too.
    (agent.history as Message[]).length = 0;
    expect(agent.history).toEqual(before);
    const next = await agent.run('tool after vandalism');
    expect(next.status).toBe('completed');
    expect(ids(agent.history.slice(0, before.length))).toEqual(ids(before));
    sound(agent.history);
    expect(ids(next.messages)).toEqual(ids(agent.history));
  });

  it('after a reset too', async () => {
    const agent = makeAgent();
    const entries: Entry[] = [];
    await drive(agent, entries, 'a', agent.run('tool one'));
    await agent.reset();
    await drive(agent, entries, 'b', agent.run('tool two'));
    await drive(agent, entries, 'c', agent.run('hi'));
    readLate(entries);
    expect(agent.history).toHaveLength(6);
  });
});

describe('with a SQLite session', () => {
  it('each result still shows what its run left; store and agent agree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-late-reads-'));
    dirs.push(dir);
    const store = await openSqliteStore(join(dir, 's.db'));
    try {
      const agent = makeAgent({ session: { store, id: 's' } });
      const entries: Entry[] = [];
      await everything(agent, entries);
      readLate(entries);
      const next = await agent.run('tool after');
      expect(next.status).toBe('completed');
      sound(agent.history);
      const stored = (await store.load('s')).messages;
      expect(ids(stored)).toEqual(ids(agent.history));
      // A fresh agent on the same session continues the same conversation.
      const fresh = makeAgent({ session: { store, id: 's' } });
      expect(ids(await fresh.load())).toEqual(ids(agent.history));
    } finally {
      await store.close();
    }
  });

  it('a run refused before it starts (commit fails) hands out a copy; later runs are sound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-late-reads-'));
    dirs.push(dir);
    const real = await openSqliteStore(join(dir, 's.db'));
    let failNext = false;
    const store = new Proxy(real, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key === 'commit' && typeof value === 'function')
          return async (...args: unknown[]) => {
            if (failNext) {
              failNext = false;
              throw new Error('disk full');
            }
            return value.apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as SessionStore;
    try {
      const agent = makeAgent({ session: { store, id: 's' } });
      const entries: Entry[] = [];
      await drive(agent, entries, 'a', agent.run('tool one'));
      failNext = true;
      const refused = await drive(agent, entries, 'refused', agent.run('tool two'));
      expect(refused?.status).toBe('error');
      await drive(agent, entries, 'b', agent.run('tool three'));
      readLate(entries);
      await agent.run('hi');
      sound(agent.history);
      expect(ids((await real.load('s')).messages)).toEqual(ids(agent.history));
    } finally {
      await real.close();
    }
  });
});

describe('compaction mid-run', () => {
  it('results read late still show what each compacted run left', async () => {
    let n = 0;
    const provider = new ScriptedProvider((_index, request: ModelRequest): ScriptedTurn => {
      const u = {
        inputTokens: Math.ceil(JSON.stringify(request.messages).length / 3.5),
        outputTokens: 10,
      };
      if (request.purpose === 'summary') return { text: 'summary of earlier lookups', usage: u };
      const last = request.messages.at(-1) as Message;
      if (last.content.some((block) => block.type === 'tool_result') && n % 6 === 0)
        return { text: 'checked', usage: u };
      n++;
      return { toolCalls: [{ name: 'big', input: { n } }], usage: u };
    });
    const big = defineTool({
      name: 'big',
      description: 'Big output',
      input: z.object({ n: z.number() }),
      permission: 'read',
      run: ({ n: k }) => `${'filler '.repeat(300)} item ${k}`,
    });
    const agent = new Agent({
      provider,
      model: 'test-model',
      tools: [big],
      compaction: { contextWindow: 8_000 },
    });
    const entries: Entry[] = [];
    for (let run = 0; run < 6; run++)
      await drive(agent, entries, `run ${run}`, agent.run(`check batch ${run}`));
    expect(entries.some(({ result }) => result.compactions.length > 0)).toBe(true);
    readLate(entries);
    const next = await agent.run('more');
    sound(agent.history);
    expect(next.messages.length).toBe(agent.history.length);
  });
});

describe('repairs at run start', () => {
  it('a broken given history is repaired once; results read late are as left', async () => {
    const broken: Message[] = [
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'dangling', name: 'echo', input: { v: 'x' } }],
      },
      { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'two in a row' }] },
      {
        id: 'u2',
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'nowhere',
            isError: false,
            content: [{ type: 'text', text: 'r' }],
          },
        ],
      },
    ];
    const given = deep(broken);
    const agent = makeAgent({ history: given });
    const entries: Entry[] = [];
    const first = await drive(agent, entries, 'first', agent.run('tool one'));
    expect(first?.repairs.length).toBeGreaterThan(0);
    await drive(agent, entries, 'second', agent.run('tool two'));
    expect(given).toEqual(broken); // the caller's array untouched
    readLate(entries);
    sound(agent.history);
  });
});

describe('events of a run', () => {
  it('no event a consumer holds changes after later runs', async () => {
    const agent = makeAgent({ compaction: { contextWindow: 6_000 } });
    const held: { event: AgentEvent; json: string }[] = [];
    const big = 'x '.repeat(2500);
    const prompts = [
      `tool a ${big}`,
      `tool b ${big}`,
      'write c.txt',
      `tool c ${big}`,
      `tool d ${big}`,
      'json x',
      'hello',
    ];
    for (const prompt of prompts) {
      const options = prompt.startsWith('json') ? { output: { schema: City, maxRetries: 2 } } : {};
      for await (const event of agent.stream(prompt, options))
        held.push({ event, json: JSON.stringify(event) });
    }
    await agent.run('tool three');
    expect(held.some(({ event }) => event.type === 'compaction')).toBe(true);
    for (const { event, json } of held) expect(JSON.stringify(event)).toBe(json);
  });

  it('requests a provider kept, read late, are prefixes of the conversation ending in a user message', async () => {
    const provider = brain();
    const agent = new Agent({ provider, model: 'm', tools: [echo] });
    for (const prompt of ['tool one', 'hi', 'tool two', 'tool three']) await agent.run(prompt);
    const all = ids(agent.history);
    for (const request of provider.requests) {
      const sent = ids(request.messages);
      expect(all.slice(0, sent.length)).toEqual(sent);
      expect(request.messages.at(-1)?.role).toBe('user');
    }
  });
});

describe('the history an agent shows while a run is under way', () => {
  it('agent.history read from a tool mid-run is a valid (paired) history', async () => {
    let seen: Message[] = [];
    const peek = defineTool({
      name: 'echo',
      description: 'Echoes, and looks at the agent history',
      input: z.object({ v: z.string() }),
      permission: 'read',
      run: ({ v }) => {
        seen = [...agent.history];
        return `echo ${v}`;
      },
    });
    const agent: Agent = new Agent({ provider: brain(), model: 'm', tools: [peek] });
    await agent.run('hello');
    await agent.run('tool one');
    // Before this commit the run worked on its own copy: agent.history mid-run was the
    // conversation up to the prompt. Now it is the live array, with the call but not its result.
    expect(ids(seen).length).toBe(3);
    expect(validateHistory(seen)).toEqual([]);
  });

  it('agent.history read between stream events is a valid (paired) history', async () => {
    const agent = makeAgent();
    await agent.run('hello');
    const violations: unknown[] = [];
    for await (const event of agent.stream('tool one')) {
      violations.push(...validateHistory(agent.history).map((v) => `${event.type}: ${v.detail}`));
    }
    expect(violations).toEqual([]);
  });
});

/**
 * A provider error after a tool turn, a guard, an interrupt denied after compaction filled the
 * window, typed output: each result read late, then the conversation goes on valid.
 */
async function moreEndings(agent: Agent): Promise<void> {
  const entries: Entry[] = [];
  for (let n = 0; n < 5; n++)
    await drive(agent, entries, `fill ${n}`, agent.run(`tool fill ${'x '.repeat(2500)}`));
  const boom = await drive(agent, entries, 'boom', agent.run('boom now'));
  expect(boom?.status).toBe('error');
  const guard = await drive(
    agent,
    entries,
    'guard',
    agent.run('tool guarded', { limits: { maxTurns: 1 } }),
  );
  expect(guard?.status).toBe('guard');
  const held = await drive(agent, entries, 'held', agent.run('write z.txt'));
  expect(held?.status).toBe('interrupted');
  const callId = held?.interrupts?.[0]?.callId as string;
  await drive(agent, entries, 'denied', agent.resume({ decisions: [{ callId, approve: false }] }));
  await drive(
    agent,
    entries,
    'json',
    agent.run('json again', { output: { schema: City, maxRetries: 2 } }),
  );
  await drive(agent, entries, 'last', agent.run('tool last'));
  expect(entries.some(({ result }) => result.compactions.length > 0)).toBe(true);
  readLate(entries);
  await agent.run('hi');
  sound(agent.history);
}

describe('more endings', () => {
  it('provider error after a tool turn, a guard, typed output, an interrupt after compaction', async () => {
    await moreEndings(makeAgent({ compaction: { contextWindow: 6_000 } }));
  });

  it('the same with a SQLite session, which a new agent loads as the agent left it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-late-reads-'));
    dirs.push(dir);
    const store = await openSqliteStore(join(dir, 's.db'));
    const session = { store, id: 's' };
    const agent = makeAgent({ compaction: { contextWindow: 6_000 }, session });
    await moreEndings(agent);
    const fresh = makeAgent({ compaction: { contextWindow: 6_000 }, session });
    expect(ids(await fresh.load())).toEqual(ids(agent.history));
    await store.close();
  });
});

describe('interrupt then a new prompt (moveOn), nothing lost', () => {
  it.each([['no session'], ['sqlite']])(
    'keeps the held call and its not-run result (%s)',
    async (mode) => {
      let store: SessionStore | undefined;
      if (mode === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'mh-late-reads-'));
        dirs.push(dir);
        store = await openSqliteStore(join(dir, 's.db'));
      }
      const agent = makeAgent(store ? { session: { store, id: 's' } } : {});
      await agent.run('tool one');
      const held = await agent.run('write b.txt');
      expect(held.status).toBe('interrupted');
      const callId = held.interrupts?.[0]?.callId as string;
      const next = await agent.run('tool three');
      expect(next.repairs.filter((r) => r.kind !== 'synthesized-result')).toEqual([]);
      const calls = agent.history.flatMap((m) =>
        m.content.filter((b) => b.type === 'tool_use').map((b) => b.id),
      );
      expect(calls).toContain(callId);
      sound(agent.history);
      const after = await agent.run('hi');
      expect(after.repairs).toEqual([]);
      expect(
        agent.history.flatMap((m) =>
          m.content.filter((b) => b.type === 'tool_use').map((b) => b.id),
        ),
      ).toContain(callId);
      await store?.close();
    },
  );
});
