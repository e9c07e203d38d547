import { describe, expect, it, vi } from 'vitest';
import { drainRun, eventsOfType } from '../../test/drain-run.js';
import { ProviderError } from '../errors.js';
import { validateHistory } from '../messages/history.js';
import {
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
  toolResultsOf,
  toolUsesOf,
  userMessage,
} from '../messages/message.js';
import { ZERO_USAGE } from '../messages/usage.js';
import type { ToolCallEvent, ToolExecutor, ToolOutcome } from '../ports/tool-executor.js';
import { PricingTable } from '../pricing/prices.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { echoTool, StubExecutor } from '../testing/stub-executor.js';
import type { LoopOptions } from './options.js';
import { runLoop } from './run-loop.js';

function options(overrides: Partial<LoopOptions> & Pick<LoopOptions, 'provider'>): LoopOptions {
  return { model: 'test-model', history: [userMessage('go', 'u0')], ...overrides };
}

describe('runLoop history integrity', () => {
  it('renames a tool call id the model reuses in a later turn, and reports it', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'call_0', name: 'echo', input: { n: 1 } }] },
      { toolCalls: [{ id: 'call_0', name: 'echo', input: { n: 2 } }] },
      { text: 'done' },
    ]);
    const { result, events } = await drainRun(
      options({ provider, tools: new StubExecutor({ echo: echoTool }) }),
    );
    expect(result.status).toBe('completed');
    expect(validateHistory(result.messages)).toEqual([]);
    const ids = result.messages.flatMap(toolUsesOf).map((call) => call.id);
    expect(ids).toEqual(['call_0', 'call_0_2']);
    const repairs = eventsOfType(events, 'history-repair').flatMap((event) => event.repairs);
    expect(repairs.map((repair) => repair.kind)).toEqual(['renamed-tool-use-id']);
  });

  it('renames a duplicate id within one assistant message', async () => {
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'x', name: 'echo', input: { n: 1 } },
          { id: 'x', name: 'echo', input: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    const { result } = await drainRun(
      options({ provider, tools: new StubExecutor({ echo: echoTool }) }),
    );
    expect(validateHistory(result.messages)).toEqual([]);
    expect(result.messages.flatMap(toolResultsOf)).toHaveLength(2);
  });

  it('answers calls the executor never answered with an error result and carries on', async () => {
    const silent: ToolExecutor = {
      specs: () => [{ name: 'echo', description: 'echo', inputSchema: { type: 'object' } }],
      execute: async function* (): AsyncGenerator<ToolCallEvent> {},
    };
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'echo' }] },
      { text: 'ok' },
    ]);
    const { result } = await drainRun(options({ provider, tools: silent }));
    expect(result.status).toBe('completed');
    const [answer] = result.messages.flatMap(toolResultsOf);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer)).toContain('returned no result');
  });

  it('yields run-start before reporting repairs of the input history', async () => {
    const broken: Message[] = [
      userMessage('q', 'u0'),
      {
        id: 'a0',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'dangling', name: 'echo', input: {} }],
      },
      userMessage('go on', 'u1'),
    ];
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    const { events } = await drainRun(options({ provider, history: broken }));
    expect(events.slice(0, 2).map((event) => event.type)).toEqual(['run-start', 'history-repair']);
  });

  it('settles a valid history through onSettled when the consumer stops early', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'echo' }] },
      { text: 'ok' },
    ]);
    const settled: (readonly Message[])[] = [];
    const loop = runLoop(
      options({
        provider,
        tools: new StubExecutor({ echo: echoTool }),
        onSettled: (history) => settled.push(history),
      }),
    );
    for await (const event of loop) if (event.type === 'tool-call-end') break;
    expect(settled).toHaveLength(1);
    expect(validateHistory(settled[0] ?? [])).toEqual([]);
    expect(settled[0]?.[0]?.id).toBe('u0');
  });

  it('calls onSettled exactly once when the run completes', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    let calls = 0;
    await drainRun(options({ provider, onSettled: () => calls++ }));
    expect(calls).toBe(1);
  });
});

describe('runLoop and stream-reset', () => {
  it('discards the retracted attempt and counts its tokens in usage', async () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const provider = {
      name: 'resetting',
      stream: async function* () {
        yield { type: 'message-start' as const };
        yield { type: 'text-delta' as const, text: 'Hel' };
        yield { type: 'stream-reset' as const, attempt: 2, reason: 'overloaded', usage };
        yield { type: 'message-start' as const };
        yield { type: 'text-delta' as const, text: 'Hello' };
        const message: Message = {
          id: 'a1',
          role: 'assistant',
          content: [{ type: 'text', text: 'Hello' }],
        };
        yield { type: 'message-end' as const, stopReason: 'end' as const, message, usage };
      },
    };
    const { result } = await drainRun(options({ provider }));
    expect(result.text).toBe('Hello');
    expect(result.usage).toEqual({
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(result.messages.at(-1)?.content).toEqual([{ type: 'text', text: 'Hello' }]);
  });
});

describe('runLoop against misbehaving parts', () => {
  const sequential = (
    started: string[],
    result?: (call: ToolUseBlock) => unknown,
  ): ToolExecutor => ({
    specs: () => [{ name: 'write', description: 'writes', inputSchema: { type: 'object' } }],
    execute: async function* (calls) {
      for (const call of calls) {
        yield { type: 'tool-start', call };
        started.push(call.id);
        const body = result?.(call) ?? {
          type: 'tool_result',
          toolUseId: call.id,
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
        };
        const outcome: ToolOutcome = {
          call,
          result: body as ToolResultBlock,
          status: 'ok',
          attempts: 1,
          durationMs: 0,
        };
        yield { type: 'tool-end', outcome };
      }
    },
  });

  it('runs an executor of the earlier port, reporting each start with its end, and warns once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const journal: string[] = [];
    const legacy = {
      specs: () => [],
      async *execute(calls: readonly ToolUseBlock[]) {
        for (const call of calls) {
          const result = { type: 'tool_result', toolUseId: call.id, content: [], isError: false };
          yield { call, result, status: 'ok', attempts: 1, durationMs: 0 };
        }
      },
    } as unknown as ToolExecutor;
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'write' },
          { id: 'c2', name: 'write' },
        ],
      },
      { text: 'done' },
    ]);
    try {
      const hooks = {
        toolStart: async (call: ToolUseBlock) => void journal.push(`start ${call.id}`),
        toolEnd: async (call: ToolUseBlock) => void journal.push(`end ${call.id}`),
      };
      const { result, events } = await drainRun(options({ provider, tools: legacy, hooks }));
      expect(result.status).toBe('completed');
      const tools = events.filter((event) => event.type.startsWith('tool-execution'));
      expect(tools.map((event) => event.type)).toEqual([
        'tool-execution-start',
        'tool-execution-end',
        'tool-execution-start',
        'tool-execution-end',
      ]);
      expect(journal).toEqual(['start c1', 'end c1', 'start c2', 'end c2']);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('reports the start of a call the executor ends without starting it', async () => {
    const executor: ToolExecutor = {
      specs: () => [],
      async *execute(calls) {
        for (const call of calls) {
          const result = toolResult(call.id, 'ok');
          yield {
            type: 'tool-end',
            outcome: { call, result, status: 'ok', attempts: 1, durationMs: 0 },
          };
        }
      },
    };
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'x' }] },
      { text: 'done' },
    ]);
    const { events } = await drainRun(options({ provider, tools: executor }));
    const tools = events.filter((event) => event.type.startsWith('tool-execution'));
    expect(tools.map((event) => event.type)).toEqual([
      'tool-execution-start',
      'tool-execution-end',
    ]);
  });

  it('fails the run when the executor yields something that is not an event', async () => {
    const executor = {
      specs: () => [],
      async *execute() {
        yield 42;
      },
    } as unknown as ToolExecutor;
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'x' }] }]);
    const { result } = await drainRun(options({ provider, tools: executor }));
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/yielded 42, not a tool-start or tool-end event/);
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('does not start the next sequential call before the consumer took the previous result', async () => {
    const started: string[] = [];
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'write' },
          { id: 'c2', name: 'write' },
          { id: 'c3', name: 'write' },
        ],
      },
      { text: 'done' },
    ]);
    const seenAtFirstEnd: string[][] = [];
    await drainRun(options({ provider, tools: sequential(started) }), async (event) => {
      if (event.type === 'tool-execution-end' && event.outcome.call.id === 'c1') {
        await new Promise((resolve) => setTimeout(resolve, 30));
        seenAtFirstEnd.push([...started]);
      }
    });
    expect(seenAtFirstEnd).toEqual([['c1']]);
    expect(started).toEqual(['c1', 'c2', 'c3']);
  });

  it('lets a consumer cancel after the first result, before the second write runs', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'write' },
          { id: 'c2', name: 'write' },
        ],
      },
    ]);
    const { result } = await drainRun(
      options({ provider, tools: sequential(started), signal: controller.signal }),
      (event) => {
        if (event.type === 'tool-execution-end') controller.abort();
      },
    );
    expect(started).toEqual(['c1']);
    expect(result.status).toBe('cancelled');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('answers a malformed tool result with an error result instead of failing the run', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'write' }] },
      { text: 'ok' },
    ]);
    const malformed = () => ({
      type: 'tool_result',
      toolUseId: 'c1',
      content: [{ type: 'image', mediaType: 'image/png' }],
      isError: false,
    });
    const { result } = await drainRun(options({ provider, tools: sequential([], malformed) }));
    expect(result.status).toBe('completed');
    const [answer] = result.messages.flatMap(toolResultsOf);
    expect(answer?.isError).toBe(true);
    expect(JSON.stringify(answer)).toContain('malformed result');
  });

  it('answers a result for the wrong call id with an error result for the right one', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'write' }] },
      { text: 'ok' },
    ]);
    const wrongId = () => ({ type: 'tool_result', toolUseId: 'zzz', content: [], isError: false });
    const { result } = await drainRun(options({ provider, tools: sequential([], wrongId) }));
    expect(result.status).toBe('completed');
    expect(validateHistory(result.messages)).toEqual([]);
    expect(result.messages.flatMap(toolResultsOf)[0]?.toolUseId).toBe('c1');
  });

  it('ends with status error and keeps the prompt when the provider returns a malformed message', async () => {
    const provider = {
      name: 'broken',
      stream: async function* () {
        const message = {
          role: 'assistant',
          content: [{ type: 'text', text: 'hi' }],
        } as unknown as Message;
        yield {
          type: 'message-end' as const,
          stopReason: 'end' as const,
          message,
          usage: ZERO_USAGE,
        };
      },
    };
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(result.error?.message).toContain('malformed message');
    expect(result.messages.map((message) => message.id)).toEqual(['u0']);
  });

  it('prices a reply by the requested model when the provider reports an unpriced model id', async () => {
    const pricing = new PricingTable({ priced: { inputPerMTok: 1_000_000, outputPerMTok: 0 } });
    const provider = new ScriptedProvider(() => ({
      toolCalls: [{ name: 'write' }],
      usage: { inputTokens: 1 },
      model: 'alias-7',
    }));
    const { result } = await drainRun(
      options({
        provider,
        model: 'priced',
        pricing,
        tools: sequential([]),
        limits: { maxCostUsd: 2, maxTurns: 10 },
      }),
    );
    expect(result.guard).toBe('max-cost');
    expect(result.turns).toBe(2);
  });
});

describe('runLoop usage of failed calls', () => {
  it('counts the tokens a call reported before it failed', async () => {
    const usage = { inputTokens: 100, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const provider = {
      name: 'failing',
      stream: async function* () {
        yield { type: 'message-start' as const };
        yield { type: 'usage' as const, usage };
        yield { type: 'text-delta' as const, text: 'partial' };
        throw new ProviderError('overloaded', { kind: 'overloaded' });
      },
    };
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(result.usage).toEqual(usage);
  });
});

describe('runLoop persistence hooks', () => {
  it('journals the assistant message before any tool runs and commits each whole turn', async () => {
    const log: string[] = [];
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'echo', input: { n: 1 } },
          { id: 'c2', name: 'echo', input: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    const executor = new StubExecutor({
      echo: async (input) => {
        log.push(`run ${JSON.stringify(input)}`);
        return 'ok';
      },
    });
    const { result } = await drainRun(
      options({
        provider,
        tools: executor,
        hooks: {
          beforeTools: async (assistant) => {
            log.push(`journal ${toolUsesOf(assistant).length} calls`);
          },
          toolStart: async (call) => {
            log.push(`start ${call.id}`);
          },
          toolEnd: async (call, toolResult) => {
            log.push(`end ${call.id} ${toolResult.isError}`);
          },
          turnCommitted: async (turn) => {
            log.push(
              `commit ${turn.turn}: ${turn.messages.map((message) => message.role).join(',')}`,
            );
          },
        },
      }),
    );
    expect(result.status).toBe('completed');
    expect(log[0]).toBe('journal 2 calls');
    expect(log.indexOf('start c1')).toBeLessThan(log.indexOf('run {"n":1}'));
    expect(log.indexOf('end c1 false')).toBeGreaterThan(log.indexOf('run {"n":1}'));
    expect(log.slice(-2)).toEqual(['commit 1: assistant,user', 'commit 2: assistant']);
  });

  it('ends the run with status error when a hook fails, history still valid', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'echo' }] },
      { text: 'done' },
    ]);
    const { result } = await drainRun(
      options({
        provider,
        tools: new StubExecutor({ echo: echoTool }),
        hooks: {
          beforeTools: async () => {
            throw new Error('disk full');
          },
        },
      }),
    );
    expect(result.status).toBe('error');
    expect(result.error?.message).toBe('disk full');
    expect(validateHistory(result.messages)).toEqual([]);
  });
});

describe('runLoop with a failure that resists being turned into text', () => {
  const unreadable = (): unknown => Object.create(null);

  it('ends with status error, not a throw, when the executor rejects with a null-prototype object', async () => {
    const executor: ToolExecutor = {
      specs: () => [],
      execute: (): AsyncIterable<ToolCallEvent> => ({
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(unreadable()) }),
      }),
    };
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo' }] }]);
    const { result } = await drainRun(options({ provider, tools: executor }));
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/failed without a readable message/);
  });

  it('ends with status error, not a throw, when the provider throws a null-prototype object', async () => {
    const provider = new ScriptedProvider([{ error: unreadable(), eventsBeforeStop: 1 }]);
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/failed without a readable message/);
  });

  it('answers a result whose toolUseId is unreadable as malformed, and completes', async () => {
    const executor: ToolExecutor = {
      specs: () => [],
      async *execute(calls) {
        for (const call of calls) {
          const result = {
            type: 'tool_result',
            toolUseId: unreadable(),
            content: [],
            isError: false,
          };
          yield { type: 'tool-start', call };
          const outcome = { call, result, status: 'ok', attempts: 1, durationMs: 0 };
          yield { type: 'tool-end', outcome: outcome as unknown as ToolOutcome };
        }
      },
    };
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo' }] }, { text: 'done' }]);
    const { result } = await drainRun(options({ provider, tools: executor }));
    expect(result.status).toBe('completed');
    const answers = toolResultsOf(result.messages[2] as Message);
    expect(answers).toMatchObject([{ isError: true }]);
  });
});
