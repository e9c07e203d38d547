import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { ConfigError, GuardTrippedError } from '../errors.js';
import { validateHistory } from '../messages/history.js';
import {
  type Message,
  type ToolResultBlock,
  toolResultsOf,
  toolResultText,
  userMessage,
} from '../messages/message.js';
import type { Usage } from '../messages/usage.js';
import { PricingTable } from '../pricing/prices.js';
import { ManualClock } from '../testing/manual-clock.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { echoTool, hangForeverTool, StubExecutor } from '../testing/stub-executor.js';
import { DEFAULT_MAX_TURNS } from './limits.js';
import type { LoopOptions } from './options.js';

/** A model that calls `echo` with new arguments on every turn. */
function toolCallingProvider(usage?: Partial<Usage>): ScriptedProvider {
  return new ScriptedProvider((index) => ({
    toolCalls: [{ name: 'echo', input: { turn: index } }],
    usage,
  }));
}

function options(overrides: Partial<LoopOptions> & Pick<LoopOptions, 'provider'>): LoopOptions {
  return {
    model: 'test-model',
    history: [userMessage('go', 'u0')],
    tools: new StubExecutor({ echo: echoTool }),
    ...overrides,
  };
}

function lastResults(messages: readonly Message[]): ReturnType<typeof toolResultsOf> {
  const last = messages.at(-1);
  return last ? toolResultsOf(last) : [];
}

describe('maxTurns guard', () => {
  it('makes exactly maxTurns requests and names max-turns when tools keep coming', async () => {
    const provider = toolCallingProvider();
    const { result } = await drainRun(options({ provider, limits: { maxTurns: 3 } }));
    expect(provider.requests).toHaveLength(3);
    expect(result).toMatchObject({ status: 'guard', guard: 'max-turns', turns: 3 });
  });

  it('completes when the model finishes on the last allowed turn', async () => {
    const provider = new ScriptedProvider((index) =>
      index < 2 ? { toolCalls: [{ name: 'echo', input: { index } }] } : { text: 'done' },
    );
    const { result } = await drainRun(options({ provider, limits: { maxTurns: 3 } }));
    expect(result).toMatchObject({ status: 'completed', guard: undefined, turns: 3, text: 'done' });
  });

  it('still runs the tool calls of the last allowed turn', async () => {
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(
      options({ provider: toolCallingProvider(), tools, limits: { maxTurns: 2 } }),
    );
    expect(tools.started).toHaveLength(2);
    expect(lastResults(result.messages)).toMatchObject([{ isError: false }]);
  });

  it('carries a GuardTrippedError with the limit and the value reached', async () => {
    const { result } = await drainRun(
      options({ provider: toolCallingProvider(), limits: { maxTurns: 2 } }),
    );
    expect(GuardTrippedError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ guard: 'max-turns', limit: 2, value: 2 });
  });

  it('defaults to DEFAULT_MAX_TURNS requests when no limit is given', async () => {
    const provider = toolCallingProvider();
    const { result } = await drainRun(options({ provider }));
    expect(provider.requests).toHaveLength(DEFAULT_MAX_TURNS);
    expect(result.guard).toBe('max-turns');
  });
});

describe('maxTokens guard', () => {
  it.each([
    [100, 1],
    [150, 2],
    [250, 3],
    [300, 3],
    [1000, 10],
  ])(
    'trips with limit %i after turn %i when each turn uses 100 tokens',
    async (limit, expectedTurns) => {
      const provider = toolCallingProvider({ inputTokens: 60, outputTokens: 40 });
      const { result } = await drainRun(options({ provider, limits: { maxTokens: limit } }));
      expect(provider.requests).toHaveLength(expectedTurns);
      expect(result).toMatchObject({ status: 'guard', guard: 'max-tokens', turns: expectedTurns });
    },
  );

  it('counts cache reads and writes toward the budget', async () => {
    const provider = toolCallingProvider({
      inputTokens: 25,
      outputTokens: 25,
      cacheReadTokens: 25,
      cacheWriteTokens: 25,
    });
    const { result } = await drainRun(options({ provider, limits: { maxTokens: 200 } }));
    expect(result).toMatchObject({ guard: 'max-tokens', turns: 2 });
    expect(result.error).toMatchObject({ limit: 200, value: 200 });
  });

  it('completes instead when the turn that reaches the budget makes no tool call', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo' }], usage: { inputTokens: 100 } },
      { text: 'done', usage: { inputTokens: 100 } },
    ]);
    const { result } = await drainRun(options({ provider, limits: { maxTokens: 200 } }));
    expect(result).toMatchObject({ status: 'completed', text: 'done', turns: 2 });
  });
});

describe('maxCostUsd guard', () => {
  // 100 uncached input tokens at $1000 per million tokens: $0.10 a turn.
  const pricing = new PricingTable({ 'priced-model': { inputPerMTok: 1000, outputPerMTok: 0 } });
  const pricedOptions = (limit: number, provider: ScriptedProvider): LoopOptions =>
    options({ provider, model: 'priced-model', pricing, limits: { maxCostUsd: limit } });

  it.each([
    [0.25, 3],
    [0.3, 3],
    [0.5, 5],
    [0.8, 8],
    [1, 10],
  ])(
    'trips with limit $%d after turn %i when each turn costs $0.10',
    async (limit, expectedTurns) => {
      const provider = toolCallingProvider({ inputTokens: 100 });
      const { result } = await drainRun(pricedOptions(limit, provider));
      expect(provider.requests).toHaveLength(expectedTurns);
      expect(result).toMatchObject({ status: 'guard', guard: 'max-cost', turns: expectedTurns });
    },
  );

  it('reports the summed cost of the run', async () => {
    const provider = toolCallingProvider({ inputTokens: 100 });
    const { result } = await drainRun(pricedOptions(0.25, provider));
    expect(result.costUsd).toBeCloseTo(0.3, 10);
  });

  it('prices a dated model id through its prefix', async () => {
    const provider = toolCallingProvider({ inputTokens: 100 });
    const { result } = await drainRun(
      options({
        provider,
        model: 'priced-model-20250101',
        pricing,
        limits: { maxCostUsd: 0.2 },
      }),
    );
    expect(result).toMatchObject({ guard: 'max-cost', turns: 2 });
  });

  it('rejects a cost limit for a model without a price, naming limits.maxCostUsd', async () => {
    const provider = toolCallingProvider();
    const run = drainRun(options({ provider, model: 'unpriced', limits: { maxCostUsd: 1 } }));
    await expect(run).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && error.field === 'limits.maxCostUsd',
    );
    expect(provider.requests).toHaveLength(0);
  });
});

describe('maxRepeatedCalls guard', () => {
  it('does not run the call after the limit and names max-repeated-calls', async () => {
    const tools = new StubExecutor({ echo: echoTool });
    const provider = new ScriptedProvider(() => ({
      toolCalls: [{ name: 'echo', input: { a: 1 } }],
    }));
    const { result } = await drainRun(
      options({ provider, tools, limits: { maxRepeatedCalls: 2 } }),
    );
    expect(tools.started).toHaveLength(2);
    expect(provider.requests).toHaveLength(3);
    expect(result).toMatchObject({ status: 'guard', guard: 'max-repeated-calls', turns: 3 });
  });

  it('answers the call it did not run with an isError result', async () => {
    const provider = new ScriptedProvider(() => ({
      toolCalls: [{ name: 'echo', input: { a: 1 } }],
    }));
    const { result } = await drainRun(options({ provider, limits: { maxRepeatedCalls: 1 } }));
    expect(validateHistory(result.messages)).toEqual([]);
    expect(lastResults(result.messages)).toMatchObject([{ isError: true }]);
  });

  it('does not tell the model that another call of the tripping turn repeated', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { a: 1 } }] },
      {
        toolCalls: [
          { name: 'echo', input: { a: 1 } },
          { id: 'other', name: 'write', input: { path: 'x' } },
        ],
      },
    ]);
    const { result } = await drainRun(options({ provider, limits: { maxRepeatedCalls: 1 } }));
    const other = lastResults(result.messages).find((block) => block.toolUseId === 'other');
    expect(other?.isError).toBe(true);
    expect(toolResultText(other as ToolResultBlock)).not.toMatch(/write was already called/);
  });

  it('counts arguments that differ only in key order as the same call', async () => {
    const tools = new StubExecutor({ echo: echoTool });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { a: 1, b: { c: 2, d: 3 } } }] },
      { toolCalls: [{ name: 'echo', input: { b: { d: 3, c: 2 }, a: 1 } }] },
      { text: 'unreachable' },
    ]);
    const { result } = await drainRun(
      options({ provider, tools, limits: { maxRepeatedCalls: 1 } }),
    );
    expect(tools.started).toHaveLength(1);
    expect(result.guard).toBe('max-repeated-calls');
  });

  it('does not count calls whose arguments differ', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { a: 1 } }] },
      { toolCalls: [{ name: 'echo', input: { a: 2 } }] },
      { text: 'done' },
    ]);
    const { result } = await drainRun(options({ provider, limits: { maxRepeatedCalls: 1 } }));
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
  });

  it('does not count different unparseable calls as the same call', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', rawInput: '{"a":' }] },
      { toolCalls: [{ name: 'echo', rawInput: '{"b":' }] },
      { toolCalls: [{ name: 'echo', rawInput: '{"c":' }] },
      { text: 'done' },
    ]);
    const { result } = await drainRun(options({ provider, limits: { maxRepeatedCalls: 2 } }));
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    for (const message of result.messages) {
      for (const block of toolResultsOf(message)) {
        expect(toolResultText(block)).not.toMatch(/already called/);
      }
    }
  });

  it('counts identical unparseable calls as the same call', async () => {
    const provider = new ScriptedProvider(() => ({
      toolCalls: [{ name: 'echo', rawInput: '{"a":' }],
    }));
    const { result } = await drainRun(options({ provider, limits: { maxRepeatedCalls: 2 } }));
    expect(result).toMatchObject({ status: 'guard', guard: 'max-repeated-calls', turns: 3 });
  });

  it('counts identical parallel calls of one turn', async () => {
    const tools = new StubExecutor({ echo: echoTool });
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: 'echo', input: { a: 1 } },
          { name: 'echo', input: { a: 1 } },
        ],
      },
    ]);
    const { result } = await drainRun(
      options({ provider, tools, limits: { maxRepeatedCalls: 1 } }),
    );
    expect(tools.started).toHaveLength(1);
    expect(result.guard).toBe('max-repeated-calls');
    expect(validateHistory(result.messages)).toEqual([]);
  });
});

describe('timeoutMs guard', () => {
  it('ends a run whose tool hangs forever ignoring its signal, with a valid history', async () => {
    const clock = new ManualClock();
    const tools = new StubExecutor({ hang: hangForeverTool });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'hang' }] }]);
    const { result } = await drainRun(
      options({ provider, tools, clock, limits: { timeoutMs: 1000 } }),
      (event) => {
        if (event.type === 'tool-execution-start') clock.advance(1000);
      },
    );
    expect(result).toMatchObject({ status: 'guard', guard: 'timeout' });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('answers the hung call with an isError result', async () => {
    const clock = new ManualClock();
    const tools = new StubExecutor({ hang: hangForeverTool });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'hang' }] }]);
    const { result } = await drainRun(
      options({ provider, tools, clock, limits: { timeoutMs: 1000 } }),
      (event) => {
        if (event.type === 'tool-execution-start') clock.advance(1000);
      },
    );
    const results = lastResults(result.messages);
    expect(results).toMatchObject([{ isError: true }]);
    expect(toolResultText(results[0] as (typeof results)[number])).toMatch(/cancelled/);
  });

  it('ends a run whose provider hangs forever ignoring its signal', async () => {
    const clock = new ManualClock();
    const provider = new ScriptedProvider([
      { text: 'thinking…', hang: 'forever', eventsBeforeStop: 2 },
    ]);
    const { result } = await drainRun(
      options({ provider, clock, limits: { timeoutMs: 500 } }),
      (event) => {
        if (event.type === 'text-delta') clock.advance(500);
      },
    );
    expect(result).toMatchObject({ status: 'guard', guard: 'timeout' });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('does not trip before timeoutMs has passed', async () => {
    const clock = new ManualClock();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo' }] }, { text: 'done' }]);
    const { result } = await drainRun(
      options({ provider, clock, limits: { timeoutMs: 1000 } }),
      (event) => {
        if (event.type === 'turn-end') clock.advance(999);
      },
    );
    expect(result.status).toBe('completed');
  });

  it('stops its timer when the run ends', async () => {
    const clock = new ManualClock();
    const provider = new ScriptedProvider([{ text: 'done' }]);
    await drainRun(options({ provider, clock, limits: { timeoutMs: 1000 } }));
    expect(clock.pendingTimers).toBe(0);
  });
});
