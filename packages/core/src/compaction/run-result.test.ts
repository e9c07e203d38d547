import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import { estimateRequestTokens } from '../messages/tokens.js';
import type { Summarizer } from '../ports/summarizer.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';

function bulky(n: number): string {
  const filler = 'status=ok latency=12ms region=eu-west retries=none note=routine '.repeat(30);
  return `${filler}\norder ORD-${10_000 + n} written\n${filler}`;
}

/** What an earlier run left: 14 lookups with bulky results and an answer; then a new prompt. */
function earlierRunThenPrompt(): Message[] {
  const history: Message[] = [{ id: 'p1', role: 'user', content: [{ type: 'text', text: 'Go.' }] }];
  for (let n = 0; n < 14; n++) {
    history.push({
      id: `a${n}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `c${n}`, name: 'lookup', input: { n } }],
    });
    history.push({
      id: `r${n}`,
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: `c${n}`,
          isError: false,
          content: [{ type: 'text', text: bulky(n) }],
        },
      ],
    });
  }
  history.push({ id: 'done1', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  history.push({ id: 'p2', role: 'user', content: [{ type: 'text', text: 'Anything else?' }] });
  return history;
}

const brief: Summarizer = {
  summarize: async () => ({
    text: 'The assistant looked up fourteen orders for the user.',
    usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
  }),
};

describe('RunResult.newMessages after a compaction', () => {
  it.each([
    ['trims', 16_000, 'trim'],
    ['summarises', 8_000, 'summary'],
  ])(
    'holds only this run’s messages when the compaction %s earlier runs’ turns',
    async (_name, window, stage) => {
      const { result } = await drainRun({
        provider: new ScriptedProvider([{ text: 'Nothing else.', usage: { inputTokens: 100 } }]),
        model: 'test-model',
        history: earlierRunThenPrompt(),
        compaction: { contextWindow: window, summarizer: brief },
      });
      expect(result.compactions.map((record) => record.stage)).toEqual([stage]);
      expect(result.newMessages.map((message) => message.id).slice(0, 1)).toEqual(['p2']);
      expect(result.newMessages).toHaveLength(2);
    },
  );

  it('starts at the summary when the compaction folded some of this run’s own messages', async () => {
    let turn = 0;
    const provider = new ScriptedProvider((_index, request) => {
      const usage = { inputTokens: estimateRequestTokens(request) };
      turn++;
      return turn > 30
        ? { text: 'All checked.', usage }
        : { toolCalls: [{ name: 'lookup', input: { n: 100 + turn } }], usage };
    });
    const { result } = await drainRun({
      provider,
      model: 'test-model',
      history: earlierRunThenPrompt(),
      tools: new StubExecutor({ lookup: async (input) => bulky((input as { n: number }).n) }),
      limits: { maxTurns: 50 },
      compaction: { contextWindow: 12_000, summarizer: brief },
    });
    const summaries = result.compactions.filter((record) => record.stage === 'summary');
    expect(summaries.some((record) => record.foldedMessageIds.includes('p2'))).toBe(true);
    const ids = result.newMessages.map((message) => message.id);
    expect(ids[0]).toBe(summaries.at(-1)?.summaryMessageId);
    expect(ids[0]).toBe(result.messages[0]?.id);
    const earlier = new Set(earlierRunThenPrompt().map((message) => message.id));
    expect(ids.filter((id) => earlier.has(id))).toEqual([]);
    const calls = result.newMessages.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_use'),
    );
    expect(calls.length).toBeGreaterThan(0);
  });
});

describe('history checks after a compaction', () => {
  it('still renames a reused tool call id when the compaction shortened the history only a little', async () => {
    // Two bulky old messages, then a recent tail that fits: the summary folds the two into one,
    // so the history is only one message shorter than the one checked before.
    const history: Message[] = [
      {
        id: 'm0',
        role: 'user',
        content: [{ type: 'text', text: `Brief: ${'context '.repeat(3_000)}` }],
      },
      { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'notes '.repeat(4_700) }] },
      { id: 'm2', role: 'user', content: [{ type: 'text', text: 'Now draft it.' }] },
      { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'draft '.repeat(2_000) }] },
      {
        id: 'm4',
        role: 'user',
        content: [{ type: 'text', text: 'Check it with the tool, twice.' }],
      },
    ];
    const provider = new ScriptedProvider((index, request) => {
      const usage = { inputTokens: estimateRequestTokens(request) };
      // Like OpenAI-compatible servers that number calls afresh every turn.
      if (index < 2)
        return { toolCalls: [{ id: 'call_0', name: 'lookup', input: { n: index } }], usage };
      return { text: 'Checked twice.', usage };
    });
    const { result } = await drainRun({
      provider,
      model: 'test-model',
      history,
      tools: new StubExecutor({ lookup: async () => 'fine' }),
      compaction: { contextWindow: 20_000, summarizer: brief },
    });
    expect(result.compactions.map((record) => record.foldedMessageIds)).toEqual([['m0', 'm1']]);
    expect(result.status).toBe('completed');
    for (const request of provider.requests) expect(validateHistory(request.messages)).toEqual([]);
    expect(validateHistory(result.messages)).toEqual([]);
  });
});
