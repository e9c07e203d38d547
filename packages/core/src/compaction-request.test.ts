import { describe, expect, it } from 'vitest';
import { drainRun } from '../test/drain-run.js';
import { type ScriptedTurn, ScriptProvider } from '../test/script-provider.js';
import { StubExecutor } from '../test/stub-executor.js';
import { validateHistory } from './history.js';
import type { ContentBlock, Message } from './messages.js';
import type { ModelRequest } from './provider.js';
import type { Summarizer, SummaryRequest } from './summarizer.js';
import { estimateRequestTokens } from './tokens.js';

const WINDOW = 20_000;

/** The user's request: text with an exact figure and an image, as a pasted screenshot would be. */
const REQUEST: ContentBlock[] = [
  {
    type: 'text',
    text: 'Check orders 1 to 80, but skip any order over 250.00 EUR and report them separately.',
  },
  { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' },
];

/**
 * A model that looks up one order per turn, then answers. A `chatty` one thinks aloud at length
 * before each call, which leaves compaction nothing to trim.
 */
function lookupScript(
  turns: number,
  chatty = false,
): (index: number, request: ModelRequest) => ScriptedTurn {
  let turn = 0;
  return (_index, request) => {
    const usage = { inputTokens: estimateRequestTokens(request), outputTokens: 20 };
    turn++;
    if (turn > turns) return { text: 'All orders checked.', usage };
    const text = chatty ? `Next I check order ${turn}. ${'Reasoning aloud. '.repeat(250)}` : [];
    return { text, toolCalls: [{ name: 'lookup', input: { n: turn } }], usage };
  };
}

const filler = 'status=ok latency=12ms region=eu-west retries=none cache=warm '.repeat(70);
const tools = (chatty: boolean): StubExecutor =>
  new StubExecutor({
    lookup: async (input) => {
      const order = `order ORD-${(input as { n: number }).n}`;
      return chatty ? order : `${filler}\n${order}\n${filler}`;
    },
  });

/** A summariser that forgets what the user asked for. */
function forgetful(calls: SummaryRequest[]): Summarizer {
  return {
    async summarize(request) {
      calls.push(request);
      return {
        text: 'The assistant looked up several orders; all lookups succeeded.',
        usage: { inputTokens: 900, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}

const failing: Summarizer = {
  summarize: async () => {
    throw new Error('503 upstream overloaded');
  },
};

/** Whether `history` holds the request's blocks, in order, verbatim, in one user message. */
function holdsRequest(history: readonly Message[], request: readonly ContentBlock[]): boolean {
  const wanted = JSON.stringify(request);
  return history.some((message) => {
    if (message.role !== 'user') return false;
    for (let start = 0; start + request.length <= message.content.length; start++) {
      if (JSON.stringify(message.content.slice(start, start + request.length)) === wanted)
        return true;
    }
    return false;
  });
}

async function run(
  summarizer: Summarizer,
  request: readonly ContentBlock[] = REQUEST,
  chatty = false,
) {
  const histories: Message[][] = [];
  const provider = new ScriptProvider(lookupScript(80, chatty));
  const { result } = await drainRun({
    provider,
    model: 'test-model',
    history: [{ id: 'ask', role: 'user', content: request }],
    tools: tools(chatty),
    limits: { maxTurns: 100 },
    compaction: { contextWindow: WINDOW, summarizer },
    hooks: {
      async compacted(_events, history) {
        histories.push([...history]);
      },
    },
  });
  return { result, histories, provider };
}

describe("compaction keeps the user's current request verbatim", () => {
  it('carries it through every summary, though the summariser forgets it and the tail is all tool calls', async () => {
    const calls: SummaryRequest[] = [];
    const { result, histories, provider } = await run(forgetful(calls));
    expect(result.status).toBe('completed');
    const summaries = result.compactions.filter((record) => record.stage === 'summary');
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    expect(histories.length).toBeGreaterThanOrEqual(summaries.length);
    for (const history of histories) {
      expect(validateHistory(history)).toEqual([]);
      expect(holdsRequest(history, REQUEST)).toBe(true);
    }
    // Every request the model got after the first compaction still showed what was asked.
    for (const request of provider.requests)
      expect(holdsRequest(request.messages, REQUEST)).toBe(true);
    // The summariser still saw the request, so its summary can say how far the work got.
    expect(JSON.stringify(calls[0]?.messages)).toContain('skip any order over 250.00 EUR');
    // The request is carried once, not once per compaction.
    const text = JSON.stringify(result.messages);
    expect(text.split('skip any order over 250.00 EUR').length - 1).toBe(1);
  });

  it('carries it through a drop note when no summary can be made', async () => {
    const { result, histories } = await run(failing, REQUEST, true);
    expect(result.status).toBe('completed');
    expect(result.compactions.some((record) => record.stage === 'drop')).toBe(true);
    for (const history of histories) expect(holdsRequest(history, REQUEST)).toBe(true);
    expect(holdsRequest(result.messages, REQUEST)).toBe(true);
  });

  it('does not carry a request too big to keep: it is summarised like the rest', async () => {
    const pasted: ContentBlock[] = [
      { type: 'text', text: `Check these orders: ${'ORD-list entry; '.repeat(1_200)}` },
    ];
    const calls: SummaryRequest[] = [];
    const { result, histories } = await run(forgetful(calls), pasted);
    expect(result.status).toBe('completed');
    expect(histories.length).toBeGreaterThan(0);
    expect(holdsRequest(histories.at(-1) ?? [], pasted)).toBe(false);
    for (const record of result.compactions) {
      if (record.stage !== 'skipped') expect(record.tokensAfter).toBeLessThan(record.tokensBefore);
    }
  });

  it('carries nothing when the request is still in the kept tail', async () => {
    const calls: SummaryRequest[] = [];
    const history: Message[] = [];
    for (let n = 0; n < 12; n++) {
      history.push({
        id: `u${n}`,
        role: 'user',
        content: [{ type: 'text', text: `Question ${n}: ${'detail '.repeat(450)}` }],
      });
      history.push({
        id: `a${n}`,
        role: 'assistant',
        content: [{ type: 'text', text: `Answer ${n}. ${'finding '.repeat(400)}` }],
      });
    }
    history.push({ id: 'now', role: 'user', content: [{ type: 'text', text: 'And now?' }] });
    const { result } = await drainRun({
      provider: new ScriptProvider([{ text: 'Done.' }]),
      model: 'test-model',
      history,
      compaction: { contextWindow: WINDOW, summarizer: forgetful(calls) },
    });
    expect(result.compactions[0]?.stage).toBe('summary');
    const summary = result.messages[0];
    expect(summary?.meta?.compaction).toBe('summary');
    expect(summary?.content).toHaveLength(1);
    expect(result.messages.some((message) => message.id === 'now')).toBe(true);
  });
});
