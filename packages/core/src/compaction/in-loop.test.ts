import { describe, expect, it } from 'vitest';
import { drainRun, eventsOfType } from '../../test/drain-run.js';
import { failingSummarizer, forgetfulSummarizer } from '../../test/summarizers.js';
import { ConfigError } from '../errors.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import { estimateRequestTokens } from '../messages/tokens.js';
import type { ModelRequest } from '../ports/provider.js';
import type { Summarizer, SummaryRequest } from '../ports/summarizer.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';
import type { CompactionEvent } from './record.js';

const WINDOW = 20_000;

/** Bulky tool output with two identifiers in its middle, as a log or CSV would have. */
function bulkyOutput(n: number): string {
  const filler =
    'status=ok latency=12ms region=eu-west retries=none cache=warm note=routine '.repeat(30);
  return `${filler}\norder ORD-${10_000 + n} written to data/orders/batch-${n}.csv\n${filler}`;
}

/** A model that looks up one order per turn for `turns` turns, then answers; usage ≈ 1.1 × estimate. */
function lookupScript(turns: number): (index: number, request: ModelRequest) => ScriptedTurn {
  let conversationTurn = 0;
  return (_index, request) => {
    const usage = {
      inputTokens: Math.ceil(estimateRequestTokens(request) * 1.1),
      outputTokens: 20,
    };
    conversationTurn++;
    if (conversationTurn > turns) return { text: 'All orders checked.', usage };
    return { toolCalls: [{ name: 'lookup', input: { n: conversationTurn } }], usage };
  };
}

const lookupTools = (): StubExecutor =>
  new StubExecutor({ lookup: async (input) => bulkyOutput((input as { n: number }).n) });

/** A summariser that keeps no identifiers at all: compaction must carry them itself. */
const forgetful = (calls: SummaryRequest[] = []): Summarizer =>
  forgetfulSummarizer(
    'The assistant looked up a series of orders one by one; all lookups succeeded.',
    calls,
  );

const allText = (messages: readonly Message[]): string => JSON.stringify(messages);

function expectIdentifiers(history: readonly Message[], upTo: number): void {
  const text = allText(history);
  for (let n = 1; n <= upTo; n++) {
    expect(text, `ORD-${10_000 + n}`).toContain(`ORD-${10_000 + n}`);
    expect(text, `batch-${n}.csv`).toContain(`data/orders/batch-${n}.csv`);
  }
}

describe('compaction in the loop', () => {
  it('keeps a 120-turn run inside the window, valid and with every identifier, crossing the threshold many times', async () => {
    const summaries: SummaryRequest[] = [];
    const provider = new ScriptedProvider(lookupScript(120));
    const seen: CompactionEvent[] = [];
    const { events, result } = await drainRun({
      provider,
      model: 'test-model',
      system: 'You look up orders.',
      history: [
        { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Check orders 1 to 120.' }] },
      ],
      tools: lookupTools(),
      limits: { maxTurns: 200 },
      compaction: { contextWindow: WINDOW, summarizer: forgetful(summaries) },
      hooks: {
        async compacted(compactionEvents, history) {
          seen.push(...compactionEvents);
          expect(validateHistory(history)).toEqual([]);
          const looked = provider.requests.length; // lookups so far ≤ requests made
          expectIdentifiers(history, Math.min(120, looked - 1));
        },
      },
    });
    expect(result.error?.message ?? result.status).toBe('completed');
    expect(validateHistory(result.messages)).toEqual([]);
    expectIdentifiers(result.messages, 120);
    const stages = result.compactions.map((record) => record.stage);
    expect(stages.filter((stage) => stage === 'summary').length).toBeGreaterThanOrEqual(3);
    expect(stages.filter((stage) => stage === 'trim').length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(result.compactions.length);
    expect(eventsOfType(events, 'compaction').map((event) => event.record)).toEqual(
      result.compactions,
    );
    expect(seen.length).toBe(result.compactions.length);
    // Every request stayed under the window, measured the way the provider counted it.
    for (const request of provider.requests) {
      expect(Math.ceil(estimateRequestTokens(request) * 1.1)).toBeLessThan(WINDOW);
    }
    for (const record of result.compactions) {
      if (record.stage !== 'skipped') expect(record.tokensAfter).toBeLessThan(record.tokensBefore);
    }
    // Summary calls are billed to the run.
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(900 * summaries.length);
  });

  it('trims before it summarises: bulky old output is cut to head and tail, identifiers listed', async () => {
    const summaries: SummaryRequest[] = [];
    const { result } = await drainRun({
      provider: new ScriptedProvider(lookupScript(12)),
      model: 'test-model',
      history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Check 12 orders.' }] }],
      tools: lookupTools(),
      compaction: {
        contextWindow: 12_000,
        summarizer: forgetful(summaries),
        trimToolResultTokens: 64,
      },
    });
    expect(result.compactions[0]?.stage).toBe('trim');
    expect(summaries).toHaveLength(0);
    const text = allText(result.messages);
    expect(text).toContain('compaction trimmed');
    expectIdentifiers(result.messages, 12);
  });

  it('degrades a failing summariser to trimming or dropping, records why, never keeps an error as a summary', async () => {
    const { result } = await drainRun({
      provider: new ScriptedProvider(lookupScript(60)),
      model: 'test-model',
      history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Check 60 orders.' }] }],
      tools: lookupTools(),
      limits: { maxTurns: 100 },
      compaction: { contextWindow: WINDOW, summarizer: failingSummarizer },
    });
    expect(result.status).toBe('completed');
    const skipped = result.compactions.filter((record) => record.stage === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const record of skipped) expect(record.reason).toContain('503 upstream overloaded');
    expect(
      result.compactions.some((record) => record.stage === 'drop' || record.stage === 'trim'),
    ).toBe(true);
    expect(allText(result.messages)).not.toContain('503 upstream overloaded');
    expect(validateHistory(result.messages)).toEqual([]);
    expectIdentifiers(result.messages, 60);
  });

  it.each([
    ['empty', ''],
    ['junk', '!!! ... ###'],
  ])('treats a summary that is %s as failed', async (_name, text) => {
    const junk: Summarizer = {
      summarize: async () => ({
        text,
        usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      }),
    };
    const { result } = await drainRun({
      provider: new ScriptedProvider(lookupScript(60)),
      model: 'test-model',
      history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Check 60 orders.' }] }],
      tools: lookupTools(),
      limits: { maxTurns: 100 },
      compaction: { contextWindow: WINDOW, summarizer: junk },
    });
    expect(result.compactions.some((record) => record.stage === 'summary')).toBe(false);
    expect(result.compactions.some((record) => record.stage === 'skipped')).toBe(true);
    expect(validateHistory(result.messages)).toEqual([]);
    expectIdentifiers(result.messages, 60);
  });

  it('discards a summary not smaller than its source, reports its cost as stage skipped (defect 1)', async () => {
    const verbose: Summarizer = {
      summarize: async (request) => ({
        text: `Summary: ${JSON.stringify(request.messages)} ${'and more detail '.repeat(2000)}`,
        usage: { inputTokens: 5_000, outputTokens: 8_000, cacheReadTokens: 0, cacheWriteTokens: 0 },
        model: 'claude-sonnet-4-5',
      }),
    };
    const { result } = await drainRun({
      provider: new ScriptedProvider(lookupScript(60)),
      model: 'test-model',
      history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Check 60 orders.' }] }],
      tools: lookupTools(),
      limits: { maxTurns: 100 },
      compaction: { contextWindow: WINDOW, summarizer: verbose },
    });
    const skipped = result.compactions.filter((record) => record.stage === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]?.reason).toMatch(/not smaller than its source/);
    expect(skipped[0]?.costUsd).toBeGreaterThan(0);
    expect(skipped[0]?.usage.outputTokens).toBe(8_000);
    expect(result.compactions.some((record) => record.stage === 'summary')).toBe(false);
    expect(result.costUsd).toBeGreaterThanOrEqual(
      skipped.reduce((sum, record) => sum + record.costUsd, 0),
    );
  });

  it('does not compact when the newest message alone is over the threshold: one skipped record, no summary (defect 1)', async () => {
    const summaries: SummaryRequest[] = [];
    const huge = 'word '.repeat((4 * 17_000) / 5); // the pasted prompt alone ≈ 17k tokens: over the threshold
    const provider = new ScriptedProvider((_index, request) => ({
      text: 'Read it.',
      usage: { inputTokens: estimateRequestTokens(request), outputTokens: 5 },
    }));
    const { result } = await drainRun({
      provider,
      model: 'test-model',
      history: [
        { id: 'u0', role: 'user', content: [{ type: 'text', text: 'Hello.' }] },
        { id: 'a0', role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
        { id: 'u1', role: 'user', content: [{ type: 'text', text: huge }] },
      ],
      compaction: { contextWindow: WINDOW, summarizer: forgetful(summaries) },
    });
    expect(result.status).toBe('completed');
    expect(summaries).toHaveLength(0);
    expect(result.compactions).toHaveLength(1);
    expect(result.compactions[0]?.stage).toBe('skipped');
    expect(result.compactions[0]?.reason).toMatch(
      /under \d+ \(5% of the window\).*newest messages alone/,
    );
    expect(result.compactions[0]?.costUsd).toBe(0);
    expect(result.messages.slice(0, 3).map((message) => message.id)).toEqual(['u0', 'a0', 'u1']);
  });

  it('rejects bad compaction options naming the field', async () => {
    const run = (compaction: unknown) =>
      drainRun({
        provider: new ScriptedProvider([{ text: 'hi' }]),
        model: 'unknown-model',
        history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'x' }] }],
        compaction: compaction as never,
      });
    await expect(run({})).rejects.toThrow(/compaction\.contextWindow/);
    await expect(run({ contextWindow: 10_000, threshold: 1.5 })).rejects.toThrow(
      /compaction\.threshold/,
    );
    await expect(run({ contextWindow: 10_000, keepRecentTokens: 9_000 })).rejects.toThrow(
      /compaction\.keepRecentTokens/,
    );
    await expect(run({ contextWindow: 10_000, summarizer: {} })).rejects.toThrow(
      /compaction\.summarizer/,
    );
    await expect(run({ contextWindow: 10_000, treshold: 0.5 })).rejects.toThrow(
      /compaction\.treshold/,
    );
    await expect(run({ contextWindow: 10_000, threshold: 0.5 })).resolves.toBeDefined();
    await expect(run({ contextWindow: 'big' })).rejects.toBeInstanceOf(ConfigError);
  });
});
