import { describe, expect, it } from 'vitest';
import { validateHistory } from '../messages/history.js';
import { type Message, toolResultText } from '../messages/message.js';
import type { Summarizer } from '../ports/summarizer.js';
import { defaultPricing } from '../pricing/prices.js';
import { ManualClock } from '../testing/manual-clock.js';
import { Compactor } from './compactor.js';
import { ContextMeter } from './context-meter.js';
import { resolveCompaction } from './options.js';
import { applyCompactionPatch, compactionPatches } from './patch.js';

// The newest turn alone can be bigger than the whole window (a file read, a log dump): no
// compaction of older history can make the request fit, and sending it is a certain provider
// error. Its tool output is then trimmed like old output is, and what cannot be helped is said.

const WINDOW = 2_000;
const context = { runId: 'run_1', turn: 1, model: 'test-model', tools: [] };
const text = (id: string, role: 'user' | 'assistant', body: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: body }],
});
const call = (id: string, callId: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool_use', id: callId, name: 'read_file', input: { path: 'big.log' } }],
});
const result = (id: string, callId: string, body: string): Message => ({
  id,
  role: 'user',
  content: [
    {
      type: 'tool_result',
      toolUseId: callId,
      isError: false,
      content: [{ type: 'text', text: body }],
    },
  ],
});
/** ~`tokens` tokens of log lines, with an identifier at the head and one at the tail. */
const log = (tokens: number): string =>
  `first line REQ-1001 ${'lorem ipsum dolor sit amet '.repeat(Math.ceil((tokens * 4) / 27))} last line REQ-9009`;

function compactor(calls: { n: number }): { subject: Compactor; meter: ContextMeter } {
  const summarizer: Summarizer = {
    summarize: async () => {
      calls.n++;
      return {
        text: 'Earlier: the user asked about the logs.',
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
  const meter = new ContextMeter();
  const subject = new Compactor(resolveCompaction({ contextWindow: WINDOW }, 'test-model'), {
    meter,
    summarizer,
    instructions: 'Summarise.',
    pricing: defaultPricing,
    clock: new ManualClock(),
  });
  return { subject, meter };
}

const size = (meter: ContextMeter, history: readonly Message[]): number =>
  meter.estimate({ model: 'test-model', tools: [], messages: history });

describe('Compactor, when the newest turn alone exceeds the window', () => {
  it('trims the newest tool output until the request fits the window, keeping its identifiers', async () => {
    const calls = { n: 0 };
    const { subject, meter } = compactor(calls);
    const history = [
      text('u0', 'user', 'show me the log'),
      call('a0', 'c0'),
      result('r0', 'c0', log(3_000)),
    ];
    expect(size(meter, history)).toBeGreaterThan(WINDOW);
    expect(subject.due(history, context)).toBe(true);
    const outcome = await subject.compact(history, context);
    const after = outcome.history;
    expect(after).toBeDefined();
    expect(validateHistory(after ?? [])).toEqual([]);
    expect(size(meter, after ?? [])).toBeLessThanOrEqual(WINDOW);
    const trim = outcome.events.find((event) => event.record.trimmedMessageIds.includes('r0'));
    expect(trim?.record.stage).toBe('trim');
    expect(trim?.record.reason).toMatch(/window/);
    expect(trim?.record.tokensAfter).toBeLessThanOrEqual(WINDOW);
    expect(trim?.originals.map((message) => message.id)).toEqual(['r0']);
    const kept = after?.at(-1);
    const keptText = kept ? toolResultText(kept.content[0] as never) : '';
    expect(keptText).toContain('REQ-1001');
    expect(keptText).toContain('REQ-9009');
    // The user's own words are never touched.
    expect(after?.[0]).toEqual(history[0]);
    expect(calls.n).toBe(0);
    // Once it fits, nothing more happens on the next turns.
    expect(subject.due(after ?? [], context)).toBe(false);
  });

  it('trims the tail after a summary that could not bring the request under the window', async () => {
    const calls = { n: 0 };
    const { subject, meter } = compactor(calls);
    const history: Message[] = [];
    for (let turn = 0; turn < 4; turn++) {
      history.push(
        text(`u${turn}`, 'user', `question ${turn} about ORD-${700 + turn} ${'pad '.repeat(90)}`),
      );
      history.push(text(`a${turn}`, 'assistant', `answer ${turn}`));
    }
    history.push(
      text('u4', 'user', 'now the log'),
      call('a4', 'c4'),
      result('r4', 'c4', log(2_400)),
    );
    const outcome = await subject.compact(history, context);
    expect(outcome.events.map((event) => event.record.stage)).toEqual(['summary', 'trim']);
    expect(calls.n).toBe(1);
    const after = outcome.history ?? [];
    expect(validateHistory(after)).toEqual([]);
    expect(size(meter, after)).toBeLessThanOrEqual(WINDOW);
    for (let turn = 0; turn < 4; turn++)
      expect(JSON.stringify(after)).toContain(`ORD-${700 + turn}`);
    // The stored history is rebuilt by the patches, the tail trim included.
    let rebuilt: Message[] | undefined = history;
    for (const patch of compactionPatches(outcome.events, after)) {
      rebuilt = rebuilt && applyCompactionPatch(rebuilt, JSON.parse(JSON.stringify(patch)));
    }
    expect(rebuilt).toEqual(after);
  });

  it('says once, without spinning, when even trimmed the newest turn cannot fit (a huge user message)', async () => {
    const calls = { n: 0 };
    const { subject } = compactor(calls);
    const history = [
      text('u0', 'user', 'hi'),
      text('a0', 'assistant', 'hello'),
      text('u1', 'user', 'z '.repeat(6_000)),
    ];
    const first = await subject.compact(history, context);
    expect(first.history).toBeUndefined();
    expect(first.events.map((event) => event.record.stage)).toEqual(['skipped']);
    expect(first.events[0]?.record.reason).toMatch(/over the window/);
    for (let turn = 0; turn < 5; turn++) {
      expect(subject.due(history, context)).toBe(false);
      expect((await subject.compact(history, context)).events).toEqual([]);
    }
    expect(calls.n).toBe(0);
  });

  it('leaves a request over the threshold but inside the window to the usual rules (recent output untouched)', async () => {
    const calls = { n: 0 };
    const { subject, meter } = compactor(calls);
    const history = [
      text('u0', 'user', 'show me the log'),
      call('a0', 'c0'),
      result('r0', 'c0', log(1_750)),
    ];
    const tokens = size(meter, history);
    expect(tokens).toBeGreaterThan(1_600);
    expect(tokens).toBeLessThanOrEqual(WINDOW);
    const outcome = await subject.compact(history, context);
    expect(outcome.history).toBeUndefined();
    expect(outcome.events.map((event) => event.record.stage)).toEqual(['skipped']);
  });

  it('records once that compaction cannot help when the trimmed newest turn stays over the threshold', async () => {
    const calls = { n: 0 };
    const { subject, meter } = compactor(calls);
    // The model's own call carries a big input (a file it writes): that is never trimmed.
    const write: Message = {
      id: 'a0',
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'c0',
          name: 'write_file',
          input: { path: 'notes.md', content: 'draft text '.repeat(600) },
        },
      ],
    };
    const history = [text('u0', 'user', 'write the notes'), write, result('r0', 'c0', log(1_000))];
    const first = await subject.compact(history, context);
    expect(first.events.map((event) => event.record.stage)).toEqual(['trim']);
    const after = first.history ?? [];
    const tokens = size(meter, after);
    // The call's input cannot be trimmed: inside the window, still over the threshold (1,600).
    expect(tokens).toBeGreaterThanOrEqual(1_600);
    expect(tokens).toBeLessThanOrEqual(WINDOW);
    // The next turn says once that nothing more can be done, then stays quiet.
    expect(subject.due(after, context)).toBe(true);
    const second = await subject.compact(after, context);
    expect(second.history).toBeUndefined();
    expect(second.events.map((event) => event.record.stage)).toEqual(['skipped']);
    expect(second.events[0]?.record.reason).toMatch(/compaction cannot help/);
    expect(subject.due(after, context)).toBe(false);
    expect(calls.n).toBe(0);
  });
});
