import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import type { Summarizer } from '../ports/summarizer.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';

/** Plain text turns (~22k tokens) over a 20k window's threshold, nothing to trim. */
function longConversation(): Message[] {
  const history: Message[] = [];
  for (let n = 0; n < 12; n++) {
    history.push({
      id: `u${n}`,
      role: 'user',
      content: [
        { type: 'text', text: `Question ${n} on ORD-${1_000 + n}: ${'detail '.repeat(450)}` },
      ],
    });
    history.push({
      id: `a${n}`,
      role: 'assistant',
      content: [{ type: 'text', text: `Answer ${n}. ${'finding '.repeat(400)}` }],
    });
  }
  history.push({ id: 'prompt', role: 'user', content: [{ type: 'text', text: 'And now?' }] });
  return history;
}

async function runWith(answer: unknown, history: Message[] = longConversation()) {
  const summarizer: Summarizer = { summarize: async () => answer as never };
  const { result } = await drainRun({
    provider: new ScriptedProvider([
      { text: 'Done.', usage: { inputTokens: 3_000, outputTokens: 5 } },
    ]),
    model: 'claude-sonnet-4-5',
    history,
    limits: { maxCostUsd: 1 },
    compaction: { contextWindow: 20_000, summarizer },
  });
  return result;
}

const fine = 'The user asked about orders ORD-1000 to ORD-1011; each was answered.';

describe('compaction with a summariser that answers badly', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', fine],
    ['text that is a number', { text: 42 }],
  ])('degrades when the summariser returns %s instead of a summary', async (_name, answer) => {
    const result = await runWith(answer);
    expect(result.error?.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.compactions[0]?.stage).toBe('skipped');
    expect(result.compactions[0]?.reason).toMatch(/no summary text/);
    expect(result.compactions.some((record) => record.stage === 'summary')).toBe(false);
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('keeps a summary whose model is not a string, priced as the run model', async () => {
    const usage = {
      inputTokens: 10_000,
      outputTokens: 500,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    const result = await runWith({ text: fine, usage, model: 42 });
    expect(result.status).toBe('completed');
    expect(result.compactions[0]?.stage).toBe('summary');
    expect(result.compactions[0]?.costUsd).toBeGreaterThan(0);
  });

  it.each([
    ['strings', { inputTokens: 'lots', outputTokens: 5 }],
    [
      'negative counts',
      { inputTokens: -1e9, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ],
    ['NaN', { inputTokens: Number.NaN, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }],
  ])(
    'counts malformed usage (%s) as zero, so cost and the cost guard stay sound',
    async (_name, usage) => {
      const result = await runWith({ text: fine, usage });
      expect(result.status).toBe('completed');
      expect(result.compactions[0]?.stage).toBe('summary');
      for (const value of Object.values(result.usage)) {
        expect(Number.isInteger(value) && value >= 0, JSON.stringify(result.usage)).toBe(true);
      }
      expect(Number.isFinite(result.costUsd) && result.costUsd > 0).toBe(true);
      expect(result.compactions[0]?.costUsd).toBeGreaterThanOrEqual(0);
    },
  );

  it('carries an identifier the summary only seems to hold inside a longer one', async () => {
    const history = longConversation();
    history[0] = {
      id: 'u0',
      role: 'user',
      content: [
        { type: 'text', text: `Compare ORD-12345 with ORD-1234. ${'detail '.repeat(450)}` },
      ],
    };
    const result = await runWith(
      {
        text: 'The user compared order ORD-12345 with another one and asked about ORD-1000 to ORD-1011.',
        usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      history,
    );
    expect(result.compactions[0]?.stage).toBe('summary');
    const summary = result.messages[0]?.content[0];
    const text = summary?.type === 'text' ? summary.text : '';
    expect(text.split('Exact identifiers from the summarised messages:')[1]).toMatch(
      /ORD-1234(?!\d)/,
    );
  });
});
