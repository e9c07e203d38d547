import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { ContextMeter } from '../compaction/context-meter.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import { lendHistory } from '../support/append-only.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';
import type { LoopOptions } from './options.js';

// A conversation lends its history to each run (`lendHistory`): the run appends to it in place and
// hands it back, so a run costs what it adds and not the length of the conversation. What the run
// gives its caller (`result.messages`) must still be the history as that run left it, however
// late it is read, and a later run must not read the prefix an earlier run settled.

const text = (id: string, role: 'user' | 'assistant', value: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: value }],
});

/** A valid conversation of `pairs` question and answer pairs. */
function conversation(pairs: number): Message[] {
  const messages: Message[] = [];
  for (let n = 0; n < pairs; n++)
    messages.push(
      text(`q${n}`, 'user', `question ${n}`),
      text(`r${n}`, 'assistant', `answer ${n}`),
    );
  return messages;
}

/** What each model call reports using, as a vendor does (the meter anchors on it). */
const usage = { inputTokens: 100, outputTokens: 10 };

/** One `echo` call, then an answer: a run adds four messages with its prompt. */
function toolRun(): Pick<LoopOptions, 'provider' | 'tools' | 'model'> {
  return {
    // Requests are not recorded: a recorded request is a copy of the whole history.
    provider: new ScriptedProvider(
      (index) =>
        index % 2 === 0
          ? { toolCalls: [{ name: 'echo', input: { value: index } }], usage }
          : { text: 'done', usage },
      { recordRequests: false },
    ),
    tools: new StubExecutor({ echo: async () => 'echoed' }),
    model: 'claude-sonnet-4-5',
  };
}

/**
 * `messages` behind a proxy that counts reads of the elements below `below` (the settled prefix):
 * what a run reads of the history it was given.
 */
function counting(messages: Message[]): {
  history: Message[];
  reads: () => number;
  below: (n: number) => void;
} {
  let limit = 0;
  let reads = 0;
  const history = new Proxy(messages, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) < limit) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return {
    history,
    reads: () => reads,
    below: (n) => {
      limit = n;
      reads = 0;
    },
  };
}

describe('a history lent to the loop', () => {
  it('is appended to in place and given back; each result keeps its messages however late they are read', async () => {
    const history = lendHistory(conversation(1));
    const options = toolRun();
    const given: (readonly Message[])[] = [];
    const results = [];
    for (let run = 0; run < 3; run++) {
      history.push(text(`p${run}`, 'user', `prompt ${run}`));
      const { result } = await drainRun({
        ...options,
        history,
        onSettled: (settled) => given.push(settled),
      });
      expect(result.status).toBe('completed');
      results.push(result);
    }
    // Every run appended to the lent array itself and gave it back.
    expect(given.every((settled) => settled === history)).toBe(true);
    expect(history).toHaveLength(2 + 3 * 4);
    expect(validateHistory(history)).toEqual([]);
    // Read only now, after the later runs appended: each run's messages as it left them.
    for (const [run, result] of results.entries()) {
      expect(result.messages).toHaveLength(2 + (run + 1) * 4);
      expect(result.messages).toEqual(history.slice(0, 2 + (run + 1) * 4));
      expect(result.messages).not.toBe(history);
      expect(result.newMessages.map((message) => message.id)[0]).toBe(`p${run}`);
    }
    // A caller may change or replace a result's messages; the history stays as it was.
    const first = results[0];
    if (!first) throw new Error('no result');
    (first.messages as Message[]).length = 0;
    expect(first.messages).toEqual([]);
    (first as { messages: readonly Message[] }).messages = [text('x', 'user', 'mine')];
    expect(first.messages.map((message) => message.id)).toEqual(['x']);
    expect(history).toHaveLength(14);
    // A spread or JSON copy of a result carries its messages.
    const second = results[1];
    expect({ ...second }.messages).toHaveLength(10);
    expect(JSON.parse(JSON.stringify(second)).messages).toHaveLength(10);
  });

  it.each([
    ['without compaction', () => ({})],
    // The agent's default with a listed model: compaction armed, one meter across the runs.
    ['with compaction armed', () => ({ compaction: { meter: new ContextMeter() } })],
  ])('is not read again below the prefix an earlier run settled (%s)', async (_name, extra) => {
    const prior = 3000;
    const { history, reads, below } = counting(conversation(prior));
    lendHistory(history);
    const options = { ...toolRun(), ...extra() };
    history.push(text('p0', 'user', 'first prompt'));
    await drainRun({ ...options, history });
    const settled = history.length;
    history.push(text('p1', 'user', 'second prompt'));
    below(settled);
    const { result } = await drainRun({ ...options, history });
    expect(result.status).toBe('completed');
    expect(result.newMessages).toHaveLength(4);
    // The run looked at the prompt and what it added; of the 6,000 settled messages, at most the
    // few a look-back touches.
    expect(reads()).toBeLessThan(20);
  });

  it('is read in full when not lent: a caller may have changed any element since', async () => {
    // The same runs on an array that is not lent: the loop copies it and compares what it settled
    // element by element. This is what the lent test above would see without `lendHistory`.
    const { history, reads, below } = counting(conversation(3000));
    const options = toolRun();
    history.push(text('p0', 'user', 'first prompt'));
    const { result: first } = await drainRun({ ...options, history });
    const next = counting([...first.messages, text('p1', 'user', 'second prompt')]);
    next.below(first.messages.length);
    await drainRun({ ...options, history: next.history });
    expect(next.reads()).toBeGreaterThan(6000);
    below(0);
    expect(reads()).toBe(0);
  });

  it('gives back a new array, lent in turn, when the run rewrote the history', async () => {
    const history = lendHistory(conversation(2));
    history.push(text('p0', 'user', 'prompt'));
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'wait', input: {} }] }]);
    const tools = new StubExecutor({
      wait: async (_input, signal) =>
        await new Promise<string>((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort();
        }),
    });
    const given: (readonly Message[])[] = [];
    const { result } = await drainRun({
      provider,
      tools,
      model: 'claude-sonnet-4-5',
      history,
      signal: controller.signal,
      onSettled: (settled) => given.push(settled),
    });
    expect(result.status).toBe('cancelled');
    const [back] = given;
    if (!back) throw new Error('onSettled was not called');
    expect(validateHistory(back)).toEqual([]);
    expect(result.messages).toEqual(back);
    expect(back).not.toBe(history);
    // The array given back is lent in turn: the next run on it appends to it in place.
    const next = back as Message[];
    next.push(text('p1', 'user', 'again'));
    const again: (readonly Message[])[] = [];
    await drainRun({ ...toolRun(), history: next, onSettled: (settled) => again.push(settled) });
    expect(again[0]).toBe(next);
    expect(next).toHaveLength(back.length);
    expect(validateHistory(next)).toEqual([]);
  });
});
