import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validHistory } from '../../test/history-arbitraries.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import { estimateMessageTokens } from '../messages/tokens.js';
import type { Summarizer } from '../ports/summarizer.js';
import { defaultPricing } from '../pricing/prices.js';
import { ManualClock } from '../testing/manual-clock.js';
import { Compactor } from './compactor.js';
import { ContextMeter } from './context-meter.js';
import { findCut } from './cut.js';
import { resolveCompaction } from './options.js';
import { applyCompactionPatch, compactionPatches } from './patch.js';

const context = { runId: 'run_1', turn: 1, model: 'test-model', tools: [] };
const text = (id: string, role: 'user' | 'assistant', body: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: body }],
});
const summarizer = (calls: { n: number }): Summarizer => ({
  summarize: async () => {
    calls.n++;
    return {
      text: 'The user and the assistant chatted about orders.',
      usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  },
});

function compactor(calls: { n: number }, window = 10_000): Compactor {
  return new Compactor(resolveCompaction({ contextWindow: window }, 'test-model'), {
    meter: new ContextMeter(),
    summarizer: summarizer(calls),
    instructions: 'Summarise.',
    pricing: defaultPricing,
    clock: new ManualClock(),
  });
}

describe('Compactor', () => {
  it('records a too-small old segment once, then stays quiet until the old segment grows', async () => {
    const calls = { n: 0 };
    const subject = compactor(calls);
    const history = [
      text('u0', 'user', 'hi'),
      text('a0', 'assistant', 'hello'),
      text('u1', 'user', 'y'.repeat(4 * 9_000)),
    ];
    const first = await subject.compact(history, context);
    expect(first.events.map((event) => event.record.stage)).toEqual(['skipped']);
    expect(first.history).toBeUndefined();
    for (let turn = 0; turn < 5; turn++) {
      expect(subject.due(history, context)).toBe(false);
      expect((await subject.compact(history, context)).events).toEqual([]);
    }
    expect(calls.n).toBe(0);
    // The history grows: the huge message is now old, so compaction may act again.
    const grown = [...history, text('a1', 'assistant', 'ok'), text('u2', 'user', 'next')];
    expect(subject.due(grown, context)).toBe(true);
    const second = await subject.compact(grown, context);
    expect(second.events.at(-1)?.record.stage).toBe('summary');
    expect(calls.n).toBe(1);
    expect(validateHistory(second.history ?? [])).toEqual([]);
  });

  it('a patch rebuilds the compacted history from the full one', async () => {
    const subject = compactor({ n: 0 });
    const history: Message[] = [];
    for (let index = 0; index < 12; index++) {
      history.push(
        text(
          `u${index}`,
          'user',
          `question ${index} about ORD-${5000 + index} ${'pad '.repeat(900)}`,
        ),
      );
      history.push(text(`a${index}`, 'assistant', `answer ${index}`));
    }
    history.push(text('u_last', 'user', 'and now?'));
    const outcome = await subject.compact(history, context);
    expect(outcome.history).toBeDefined();
    let rebuilt: Message[] | undefined = history;
    for (const patch of compactionPatches(outcome.events, outcome.history ?? [])) {
      rebuilt = rebuilt && applyCompactionPatch(rebuilt, JSON.parse(JSON.stringify(patch)));
    }
    expect(rebuilt).toEqual(outcome.history);
    for (let index = 0; index < 12; index++)
      expect(JSON.stringify(rebuilt)).toContain(`ORD-${5000 + index}`);
  });

  it('never cuts between a tool call and its result (property)', () => {
    fc.assert(
      fc.property(validHistory, fc.integer({ min: 0, max: 2_000 }), (history, keep) => {
        const cut = findCut(
          history,
          (messages) => messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0),
          keep,
        );
        if (cut === 0) return;
        expect(cut).toBeGreaterThan(0);
        expect(cut).toBeLessThan(history.length);
        const tail = history.slice(cut);
        expect(validateHistory(tail)).toEqual([]);
        const first = tail[0] as Message;
        expect(
          first.role === 'assistant' ||
            !first.content.some((block) => block.type === 'tool_result'),
        ).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
