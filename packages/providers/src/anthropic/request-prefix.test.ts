import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type Message,
  type ModelRequest,
  type RunResult,
  runLoop,
  SUMMARY_HEADER,
  type ToolExecutor,
  type ToolSpec,
  toolResult,
} from '@mh/core';
import { estimateRequestTokens } from '@mh/core/internal';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../scripted-provider.js';
import { toAnthropicRequest } from './anthropic-request.js';
import {
  countCacheBreakpoints,
  lastMessageBlock,
  MAX_CACHE_BREAKPOINTS,
} from './cache-breakpoints.js';

// The prefix-stability test at the wire level: the Anthropic bodies of a run with one
// compaction. Anthropic caches the prompt in the order tools → system → messages, so that is the
// order the prefix is serialised in here (the body's JSON key order is not the cache order).

const WINDOW = 20_000;
const TURNS_AFTER_COMPACTION = 24;
/** Anthropic looks back at most this many blocks from a breakpoint for an earlier cache entry. */
const CACHE_LOOKBACK_BLOCKS = 20;
const SETTINGS = { cache: true, defaultMaxOutputTokens: 8192 };

const TOOLS: ToolSpec[] = ['lookup', 'report'].map((name) => ({
  name,
  description: `The ${name} tool of the order audit.`,
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
}));

/** Answers every call with order-audit output under the trim threshold (so compaction summarises). */
const executor: ToolExecutor = {
  specs: () => TOOLS,
  async *execute(calls) {
    for (const call of calls) {
      const n = (call.input as { n: number }).n;
      const filler = 'status=ok latency=12ms region=eu-west note=routine '.repeat(12);
      const text = `${filler}\norder ORD-${20_000 + n} in data/orders/batch-${n}.csv\n${filler}`;
      yield { type: 'tool-start', call };
      const outcome = {
        call,
        result: toolResult(call.id, text),
        status: 'ok',
        attempts: 1,
      } as const;
      yield { type: 'tool-end', outcome: { ...outcome, durationMs: 0 } };
    }
  },
};

const startsWithSummary = (request: ModelRequest): boolean =>
  request.messages[0]?.meta?.compaction === 'summary';

/** Looks up orders until `TURNS_AFTER_COMPACTION` requests started from a summary; usage 1.1 × estimate. */
function auditProvider(): ScriptedProvider {
  let lookups = 0;
  let afterCompaction = 0;
  return new ScriptedProvider(
    [
      (request) => {
        const usage = {
          inputTokens: Math.ceil(estimateRequestTokens(request) * 1.1),
          outputTokens: 9,
        };
        if (request.purpose === 'summary') return { text: 'The assistant audited orders.', usage };
        if (startsWithSummary(request)) afterCompaction++;
        if (afterCompaction >= TURNS_AFTER_COMPACTION) return { text: 'Audit done.', usage };
        lookups++;
        return { toolCalls: [{ name: 'lookup', input: { n: lookups } }], usage };
      },
    ],
    { whenExhausted: 'repeat-last' },
  );
}

type Block = ContentBlockParam & { cache_control?: unknown };
const blocksOf = (body: MessageCreateParamsStreaming): Block[] =>
  body.messages.flatMap((message) => message.content as Block[]);
const isSummaryBlock = (block: Block | undefined): boolean =>
  block?.type === 'text' && block.text.startsWith(SUMMARY_HEADER);

const withoutBreakpoints = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, inner) => (key === 'cache_control' ? undefined : inner));

/**
 * The cacheable prefix of a body, in cache order: tools, system, then the first message, byte for
 * byte as sent when it is a summary (its blocks: the summary, then the user's request it carries,
 * the last one marked). Without a summary it is the whole first message minus the moving
 * breakpoint it carries while it is the newest message (Anthropic keeps `cache_control` out of
 * the cache key).
 */
function cachePrefix(body: MessageCreateParamsStreaming): { head: string; first: string } {
  const first = body.messages[0];
  const content = (first?.content ?? []) as Block[];
  const kept = isSummaryBlock(content[0]) ? content : withoutBreakpoints(content);
  return {
    head: JSON.stringify([body.tools, body.system]),
    first: JSON.stringify({ role: first?.role, content: kept }),
  };
}

let result: RunResult;
let bodies: MessageCreateParamsStreaming[];
let summaryBodies: MessageCreateParamsStreaming[];
let boundary: number;

beforeAll(async () => {
  const provider = auditProvider();
  const run = runLoop({
    provider,
    model: 'claude-sonnet-4-5',
    system: 'You audit orders. Quote every order number and file path exactly.',
    history: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'Audit the orders.' }] }],
    tools: executor,
    limits: { maxTurns: 200 },
    compaction: { contextWindow: WINDOW },
  });
  for (;;) {
    const next = await run.next();
    if (next.done) {
      result = next.value;
      break;
    }
  }
  const turns = provider.requests.filter((request) => request.purpose !== 'summary');
  bodies = turns.map((request) => toAnthropicRequest(request, SETTINGS));
  summaryBodies = provider.requests
    .filter((request) => request.purpose === 'summary')
    .map((request) => toAnthropicRequest(request, SETTINGS));
  boundary = turns.findIndex(startsWithSummary);
});

describe('the Anthropic request prefix over a run with one compaction', () => {
  it('runs 20+ turns on each side of exactly one summary compaction', () => {
    expect(result.error?.message ?? result.status).toBe('completed');
    expect(result.compactions.map((record) => record.stage)).toEqual(['summary']);
    expect(summaryBodies).toHaveLength(1);
    expect(boundary).toBeGreaterThanOrEqual(20);
    expect(bodies.length - boundary).toBeGreaterThanOrEqual(20);
  });

  it('serialises tools and system identically in every body, and the first message up to the summary identically between compactions', () => {
    const prefixes = bodies.map(cachePrefix);
    for (let index = 1; index < prefixes.length; index++) {
      expect(prefixes[index]?.head, `body ${index + 1}: tools and system`).toBe(
        prefixes[index - 1]?.head,
      );
      if (index === boundary) {
        expect(prefixes[index]?.first).not.toBe(prefixes[index - 1]?.first);
      } else {
        expect(prefixes[index]?.first, `body ${index + 1}: first message`).toBe(
          prefixes[index - 1]?.first,
        );
      }
    }
    const afterCompaction = bodies.slice(boundary).map(cachePrefix);
    expect(new Set(afterCompaction.map((prefix) => prefix.head + prefix.first)).size).toBe(1);
  });

  it('puts breakpoints on the system prompt, the last tool, the summary and the newest block, never more than four', () => {
    bodies.forEach((body, index) => {
      const label = `body ${index + 1}`;
      expect(countCacheBreakpoints(body), label).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      expect(body.system?.[0], label).toHaveProperty('cache_control', { type: 'ephemeral' });
      const tools = (body.tools ?? []) as { cache_control?: unknown }[];
      expect(tools.map((tool) => tool.cache_control !== undefined)).toEqual([false, true]);
      const blocks = blocksOf(body);
      const marked = blocks.filter((block) => block.cache_control !== undefined);
      expect(blocks.at(-1)?.cache_control, `${label}: newest block`).toEqual({ type: 'ephemeral' });
      if (index < boundary) {
        expect(marked, label).toHaveLength(1);
      } else {
        expect(marked, label).toHaveLength(2);
        // The summary message is first; its breakpoint is on its last block (after the request
        // it carries, when it carries one).
        const summary = body.messages[0]?.content as Block[];
        expect(isSummaryBlock(summary[0]), `${label}: summary`).toBe(true);
        expect(summary.at(-1)).toBe(marked[0]);
      }
    });
  });

  it('lets each turn read the previous turn from the cache: the previous body is a prefix, within the lookback', () => {
    for (let index = 1; index < bodies.length; index++) {
      if (index === boundary) continue;
      const previous = withoutBreakpoints(
        (bodies[index - 1] as MessageCreateParamsStreaming).messages,
      );
      const current = withoutBreakpoints((bodies[index] as MessageCreateParamsStreaming).messages);
      const kept = (previous as unknown[]).length;
      expect((current as unknown[]).slice(0, kept)).toEqual(previous);
      const appended =
        blocksOf(bodies[index] as MessageCreateParamsStreaming).length -
        blocksOf(bodies[index - 1] as MessageCreateParamsStreaming).length;
      expect(appended).toBeGreaterThan(0);
      expect(appended).toBeLessThanOrEqual(CACHE_LOOKBACK_BLOCKS);
    }
  });

  it('gives the one-off summary call no moving breakpoint', () => {
    const [summary] = summaryBodies as [MessageCreateParamsStreaming];
    expect(summary.tools).toBeUndefined();
    expect(countCacheBreakpoints(summary)).toBe(1);
    expect(summary.system?.[0]).toHaveProperty('cache_control', { type: 'ephemeral' });
  });
});

describe('the moving breakpoint', () => {
  const ephemeral = { type: 'ephemeral' };
  const text = (id: string, role: Message['role'], body: string, meta?: Message['meta']) =>
    ({ id, role, content: [{ type: 'text', text: body }], meta }) as Message;
  const request = (messages: Message[]): ModelRequest => ({
    model: 'claude-sonnet-4-5',
    system: 'System.',
    tools: TOOLS.slice(0, 1),
    messages,
  });

  it('is the first to go when the four slots run out: the summary keeps its breakpoint', () => {
    const passedThrough: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        {
          type: 'provider',
          provider: 'anthropic',
          data: { type: 'text', text: 'x', cache_control: ephemeral },
        },
      ],
    };
    const body = toAnthropicRequest(
      request([
        text('s', 'user', 'Summary', { cacheBreakpoint: true }),
        passedThrough,
        text('u2', 'user', 'Newest'),
      ]),
      SETTINGS,
    );
    expect(countCacheBreakpoints(body)).toBe(4);
    expect(body.messages[0]?.content).toEqual([
      { type: 'text', text: 'Summary', cache_control: ephemeral },
    ]);
    expect(body.messages[2]?.content).toEqual([{ type: 'text', text: 'Newest' }]);
  });

  it('skips a trailing thinking block, which cannot carry one', () => {
    const body = toAnthropicRequest(
      request([
        text('u1', 'user', 'Hi'),
        {
          id: 'a1',
          role: 'assistant',
          content: [
            { type: 'text', text: 'Prefill' },
            { type: 'thinking', thinking: 'x', signature: 'sig' },
          ],
        },
      ]),
      SETTINGS,
    );
    expect(lastMessageBlock(body)).toEqual({
      type: 'text',
      text: 'Prefill',
      cache_control: ephemeral,
    });
    expect(body.messages[1]?.content[1]).not.toHaveProperty('cache_control');
  });

  it('is not sent with caching off', () => {
    const body = toAnthropicRequest(request([text('u1', 'user', 'Hi')]), {
      ...SETTINGS,
      cache: false,
    });
    expect(countCacheBreakpoints(body)).toBe(0);
  });
});
