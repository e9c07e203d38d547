import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CompactionRecord,
  ConfigError,
  ContextMeter,
  type Message,
  type ModelRequest,
  type Summarizer,
  validateHistory,
} from '@mh/core';
import { ScriptedProvider } from '@mh/providers';
import { openSqliteStore } from '@mh/session-sql';
import { defineTool, z } from '@mh/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  input: z.object({ n: z.number() }),
  permission: 'read',
  run: async ({ n }) =>
    `${'status=ok region=eu-west cache=warm note=routine '.repeat(40)}\norder ORD-${20_000 + n} in data/batches/b-${n}.csv\n${'trailer line '.repeat(60)}`,
});

/** A model that looks up orders 1..turns, one per request, then answers; summaries keep no ids. */
function lookupProvider(turns: number): ScriptedProvider {
  let n = 0;
  const step = (request: ModelRequest) => {
    const usage = {
      inputTokens: Math.ceil(JSON.stringify(request.messages).length / 3.5),
      outputTokens: 10,
    };
    if (request.purpose === 'summary')
      return { text: 'Orders were looked up one at a time; all fine.', usage };
    n++;
    return n > turns
      ? { text: `Checked ${turns} orders.`, usage }
      : { toolCalls: [{ name: 'lookup', input: { n } }], usage };
  };
  return new ScriptedProvider([step], { whenExhausted: 'repeat-last' });
}

const identifiersIn = (messages: readonly Message[], upTo: number): string[] => {
  const text = JSON.stringify(messages);
  const missing: string[] = [];
  for (let n = 1; n <= upTo; n++) {
    if (!text.includes(`ORD-${20_000 + n}`)) missing.push(`ORD-${20_000 + n}`);
    if (!text.includes(`data/batches/b-${n}.csv`)) missing.push(`b-${n}.csv`);
  }
  return missing;
};

describe('Agent compaction', () => {
  it('summarises through its own provider (purpose summary) and keeps identifiers', async () => {
    const provider = lookupProvider(40);
    const agent = new Agent({
      provider,
      model: 'test-model',
      tools: [lookup],
      compaction: { contextWindow: 12_000 },
      limits: { maxTurns: 60 },
    });
    const result = await agent.run('Check orders 1..40.');
    expect(result.status).toBe('completed');
    expect(result.compactions.some((record) => record.stage === 'summary')).toBe(true);
    expect(provider.requests.some((request) => request.purpose === 'summary')).toBe(true);
    expect(identifiersIn(agent.history, 40)).toEqual([]);
    expect(validateHistory(agent.history)).toEqual([]);
  });

  it('is on by default for a model with a known window, off with false, and checks its options', () => {
    expect(
      () => new Agent({ provider: lookupProvider(1), model: 'unknown-model', compaction: {} }),
    ).toThrow(/compaction\.contextWindow/);
    expect(
      () =>
        new Agent({
          provider: lookupProvider(1),
          model: 'x',
          compaction: { contextWindow: 5_000, threshold: 2 },
        }),
    ).toThrow(ConfigError);
    expect(
      () => new Agent({ provider: lookupProvider(1), model: 'x', compaction: 'yes' as never }),
    ).toThrow(/compaction/);
    expect(
      () => new Agent({ provider: lookupProvider(1), model: 'claude-sonnet-4-5' }),
    ).not.toThrow();
    expect(
      () => new Agent({ provider: lookupProvider(1), model: 'unknown-model', compaction: false }),
    ).not.toThrow();
  });

  it('persists compactions with the checkpoints: a reloaded agent gets the compacted history and sizes it from stored usage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-compaction-'));
    dirs.push(dir);
    const store = await openSqliteStore(join(dir, 's.db'));
    try {
      const records: CompactionRecord[] = [];
      const first = new Agent({
        provider: lookupProvider(40),
        model: 'test-model',
        tools: [lookup],
        compaction: { contextWindow: 12_000 },
        limits: { maxTurns: 60 },
        session: { store, id: 's1' },
      });
      const result = await first.run('Check orders 1..40.');
      records.push(...result.compactions);
      expect(records.filter((record) => record.stage !== 'skipped').length).toBeGreaterThan(1);
      const checkpoints = await store.listCheckpoints('s1');
      const stored = checkpoints.flatMap(
        (checkpoint) =>
          (checkpoint.meta.extra?.compactions as { record: CompactionRecord }[] | undefined) ?? [],
      );
      expect(stored.map((patch) => patch.record.id)).toEqual(records.map((record) => record.id));

      const summaries: number[] = [];
      const counting: Summarizer = {
        summarize: async () => {
          summaries.push(1);
          return {
            text: 'x',
            usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
          };
        },
      };
      const meter = new ContextMeter();
      const second = new Agent({
        provider: lookupProvider(0),
        model: 'test-model',
        tools: [lookup],
        compaction: { contextWindow: 12_000, summarizer: counting, meter },
        session: { store, id: 's1' },
        fencing: false,
      });
      const loaded = await second.load();
      // Sized from the last stored measurement, not estimated from scratch.
      const size = meter.measure({
        model: 'test-model',
        tools: [{ name: 'lookup', description: '', inputSchema: {} }],
        messages: loaded,
      });
      expect(size.measuredTokens).toBeGreaterThan(0);
      expect(size.calibration).not.toBe(1);
      expect(loaded).toEqual(first.history);
      expect(validateHistory(loaded)).toEqual([]);
      expect(identifiersIn(loaded, 40)).toEqual([]);
      // The prompt was folded, but its summary carried it verbatim, and so does the reload.
      const holdsPrompt = (messages: readonly Message[]): boolean =>
        messages.some((message) =>
          message.content.some(
            (block) => block.type === 'text' && block.text.endsWith('\nCheck orders 1..40.'),
          ),
        );
      expect(loaded[0]?.meta?.request).toEqual({ text: 'Check orders 1..40.', blocks: 0 });
      expect(holdsPrompt(loaded)).toBe(true);
      // The full history is still in the store: the compaction only changed the working view.
      const state = await store.load('s1');
      expect(state.messages.length).toBeGreaterThan(loaded.length);
      expect(identifiersIn(state.messages, 40)).toEqual([]);
      // Resumed under the threshold: the next run does not compact again straight away.
      const next = await second.run('Thanks.');
      expect(next.status).toBe('completed');
      expect(summaries).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
