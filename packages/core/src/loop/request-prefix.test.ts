import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import type { CompactionOptions } from '../compaction/options.js';
import type { Message } from '../messages/message.js';
import { estimateRequestTokens } from '../messages/tokens.js';
import type { ModelRequest } from '../ports/provider.js';
import type { Summarizer } from '../ports/summarizer.js';
import { ScriptedProvider, type ScriptedTurn } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';
import type { RunResult } from './run-result.js';

// The prefix-stability test: system, tools and the latest summary form a byte-stable
// request prefix, so a provider's prompt cache keeps hitting. Across 20+ turns without compaction
// the serialised prefix is byte-identical; across a compaction only the first message (the
// summary) changes.

const WINDOW = 20_000;
const TURNS_AFTER_COMPACTION = 24;
const SYSTEM = 'You audit orders. Quote every order number and file path exactly.';

/**
 * Tool output under the trim threshold (512 tokens), so stage 1 cannot help and the one
 * compaction is a summary that becomes the first message.
 */
function lookupOutput(n: number): string {
  const filler = 'status=ok latency=12ms region=eu-west note=routine '.repeat(12);
  return `${filler}\norder ORD-${20_000 + n} in data/orders/batch-${n}.csv\n${filler}`;
}

const isSummaryRequest = (request: ModelRequest): boolean => request.purpose === 'summary';
const startsWithSummary = (request: ModelRequest): boolean =>
  request.messages[0]?.meta?.compaction === 'summary';

/**
 * A model that looks up one order per turn until `TURNS_AFTER_COMPACTION` requests have started
 * from a summary, then answers. Usage is 1.1 × the estimate (exercises calibration); summary
 * requests get a short summary.
 */
function auditScript(): (index: number, request: ModelRequest) => ScriptedTurn {
  let lookups = 0;
  let afterCompaction = 0;
  return (_index, request) => {
    const usage = { inputTokens: Math.ceil(estimateRequestTokens(request) * 1.1), outputTokens: 9 };
    if (isSummaryRequest(request)) return { text: 'The assistant audited orders.', usage };
    if (startsWithSummary(request)) afterCompaction++;
    if (afterCompaction >= TURNS_AFTER_COMPACTION) return { text: 'Audit done.', usage };
    lookups++;
    return { toolCalls: [{ name: 'lookup', input: { n: lookups } }], usage };
  };
}

/** A summariser outside the provider: every provider request is a conversation turn. */
const directSummarizer: Summarizer = {
  summarize: async () => ({
    text: 'The assistant audited a series of orders one by one; every lookup succeeded.',
    usage: { inputTokens: 500, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
  }),
};

/** The serialised prefix of a request: system and tools, then the first message as sent. */
function prefixOf(request: ModelRequest): { head: string; first: string } {
  const first = request.messages[0] as Message;
  return {
    head: JSON.stringify({ system: request.system, tools: request.tools }),
    first: JSON.stringify({ role: first.role, content: first.content }),
  };
}

async function audit(
  compaction: CompactionOptions,
): Promise<{ result: RunResult; requests: ModelRequest[] }> {
  const provider = new ScriptedProvider(auditScript());
  const { result } = await drainRun({
    provider,
    model: 'test-model',
    system: SYSTEM,
    history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Audit the orders.' }] }],
    tools: new StubExecutor({
      lookup: async (input) => lookupOutput((input as { n: number }).n),
      report: async () => 'filed',
    }),
    limits: { maxTurns: 200 },
    compaction,
  });
  return { result, requests: provider.requests.filter((request) => !isSummaryRequest(request)) };
}

describe('the request prefix', () => {
  it.each([
    ['a separate summariser', { contextWindow: WINDOW, summarizer: directSummarizer }],
    ['the run provider as summariser', { contextWindow: WINDOW }],
  ])('is byte-stable except for the summary across a compaction (%s)', async (_name, options) => {
    const { result, requests } = await audit(options);
    expect(result.error?.message ?? result.status).toBe('completed');
    // Exactly one compaction, a summary, with enough turns on each side of it.
    expect(result.compactions.map((record) => record.stage)).toEqual(['summary']);
    const boundary = requests.findIndex(startsWithSummary);
    expect(boundary).toBe((result.compactions[0]?.turn ?? 0) - 1);
    expect(boundary).toBeGreaterThanOrEqual(20);
    expect(requests.length - boundary).toBeGreaterThanOrEqual(20);

    const prefixes = requests.map(prefixOf);
    for (let index = 1; index < prefixes.length; index++) {
      const [before, after] = [prefixes[index - 1], prefixes[index]];
      // System and tools never change, compaction or not.
      expect(after?.head, `request ${index + 1}: system and tools`).toBe(before?.head);
      if (index === boundary) {
        expect(after?.first, 'the compaction replaced the first message').not.toBe(before?.first);
      } else {
        expect(after?.first, `request ${index + 1}: first message`).toBe(before?.first);
      }
    }
    const summary = requests[boundary]?.messages[0];
    expect(summary?.id).toBe(result.compactions[0]?.summaryMessageId);
    expect(summary?.meta).toMatchObject({ compaction: 'summary', cacheBreakpoint: true });
    // The summary stays the first message of every later request, the very same message.
    for (const request of requests.slice(boundary)) expect(request.messages[0]).toBe(summary);
  });

  it('keeps the old messages after the summary as sent, only growing at the end', async () => {
    const { requests } = await audit({ contextWindow: WINDOW, summarizer: directSummarizer });
    const boundary = requests.findIndex(startsWithSummary);
    // Without compaction each request's messages extend the previous request's, byte for byte,
    // so the whole previous prompt is a cacheable prefix of the next one.
    for (let index = 1; index < requests.length; index++) {
      if (index === boundary) continue;
      const previous = (requests[index - 1] as ModelRequest).messages;
      const current = (requests[index] as ModelRequest).messages;
      expect(current.length).toBeGreaterThan(previous.length);
      expect(JSON.stringify(current.slice(0, previous.length))).toBe(JSON.stringify(previous));
    }
  });
});
