import { describe, expect, it } from 'vitest';
import { drainRun, eventsOfType } from '../../test/drain-run.js';
import { CancelledError, HarnessError, ProviderError } from '../errors.js';
import { validateHistory } from '../messages/history.js';
import { interruptedResultText } from '../messages/history-repair.js';
import {
  type Message,
  messageText,
  type ToolResultBlock,
  toolResultsOf,
  toolResultText,
  userMessage,
} from '../messages/message.js';
import type { Provider } from '../ports/provider.js';
import type { ToolExecutor } from '../ports/tool-executor.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import {
  echoTool,
  hangForeverTool,
  hangUntilAbortedTool,
  StubExecutor,
} from '../testing/stub-executor.js';
import { InMemoryTracer } from '../tracing/in-memory-tracer.js';
import type { LoopOptions } from './options.js';
import { runLoop } from './run-loop.js';
import type { AgentEvent, RunResult } from './run-result.js';

function options(overrides: Partial<LoopOptions> & Pick<LoopOptions, 'provider'>): LoopOptions {
  return { model: 'test-model', history: [userMessage('go', 'u0')], ...overrides };
}

function allResults(messages: readonly Message[]): ToolResultBlock[] {
  return messages.flatMap(toolResultsOf);
}

function resultFor(messages: readonly Message[], toolUseId: string): ToolResultBlock | undefined {
  return allResults(messages).find((result) => result.toolUseId === toolUseId);
}

/** Aborts `controller` when the first event of `type` arrives. */
function abortOn(controller: AbortController, type: AgentEvent['type']) {
  return (event: AgentEvent): void => {
    if (event.type === type) controller.abort();
  };
}

const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('runLoop cancellation', () => {
  it('ends cancelled with a valid history when aborted while text deltas stream', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ['a', 'b', 'c', 'd', 'e', 'f'] }]);
    const { result } = await drainRun(
      options({ provider, signal: controller.signal }),
      abortOn(controller, 'text-delta'),
    );
    expect(result.status).toBe('cancelled');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('keeps the text streamed before the abort as a partial assistant message', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ['Hel', 'lo', ' there'], delayMs: 1 }]);
    let seen = '';
    const { result } = await drainRun(options({ provider, signal: controller.signal }), (event) => {
      if (event.type !== 'text-delta') return;
      seen += event.text;
      if (seen === 'Hello') controller.abort();
    });
    const last = result.messages.at(-1);
    expect(last).toMatchObject({ role: 'assistant', meta: { partial: true } });
    expect(messageText(last as Message).startsWith('Hello')).toBe(true);
  });

  it('keeps the streamed text when the provider throws as soon as it sees the abort', async () => {
    const controller = new AbortController();
    // Like a vendor SDK: checks the signal on resume and throws its abort error right away.
    const provider: Provider = {
      name: 'eager-abort',
      async *stream(_request, streamOptions) {
        yield { type: 'message-start' };
        yield { type: 'text-delta', text: 'Hello' };
        if (streamOptions?.signal?.aborted) throw new CancelledError('request aborted');
        yield { type: 'text-delta', text: ' never' };
      },
    };
    const { result } = await drainRun(
      options({ provider, signal: controller.signal }),
      abortOn(controller, 'text-delta'),
    );
    expect(result.status).toBe('cancelled');
    expect(result.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
      meta: { partial: true },
    });
  });

  it('ends cancelled when aborted while the provider hangs until aborted', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ hang: 'until-aborted', eventsBeforeStop: 1 }]);
    const { result } = await drainRun(options({ provider, signal: controller.signal }), (event) => {
      if (event.type === 'message-start') setTimeout(() => controller.abort(), 5);
    });
    expect(result.status).toBe('cancelled');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('ends cancelled when aborted while the provider hangs ignoring its signal', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: 'x', hang: 'forever', eventsBeforeStop: 2 }]);
    const { result } = await drainRun(options({ provider, signal: controller.signal }), (event) => {
      if (event.type === 'text-delta') setTimeout(() => controller.abort(), 5);
    });
    expect(result.status).toBe('cancelled');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('answers a call streamed before a mid-stream abort with a cancelled result', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      {
        toolCalls: [{ id: 'c1', name: 'echo' }],
        hang: 'until-aborted',
        eventsBeforeStop: 4,
      },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(
      options({ provider, tools, signal: controller.signal }),
      abortOn(controller, 'tool-call-end'),
    );
    expect(result.status).toBe('cancelled');
    expect(tools.started).toHaveLength(0);
    expect(resultFor(result.messages, 'c1')).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: interruptedResultText('cancelled') }],
    });
  });

  it('ends cancelled with a valid history when aborted while a tool runs', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'slow' }] }]);
    const tools = new StubExecutor({ slow: hangUntilAbortedTool });
    const { result } = await drainRun(
      options({ provider, tools, signal: controller.signal }),
      abortOn(controller, 'tool-execution-start'),
    );
    expect(result.status).toBe('cancelled');
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('ends cancelled when aborted while a tool that ignores its signal runs', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'stuck' }] }]);
    const tools = new StubExecutor({ stuck: hangForeverTool });
    const { result } = await drainRun(
      options({ provider, tools, signal: controller.signal }),
      abortOn(controller, 'tool-execution-start'),
    );
    expect(result.status).toBe('cancelled');
    expect(resultFor(result.messages, 'c1')).toMatchObject({ isError: true });
  });

  it('keeps finished results and answers the unfinished calls as cancelled', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'fast', name: 'echo', input: { a: 1 } },
          { id: 'slow', name: 'slow' },
        ],
      },
    ]);
    const tools = new StubExecutor({ echo: echoTool, slow: hangUntilAbortedTool });
    const { result } = await drainRun(
      options({ provider, tools, signal: controller.signal }),
      abortOn(controller, 'tool-execution-end'),
    );
    expect(resultFor(result.messages, 'fast')).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: '{"a":1}' }],
    });
    expect(resultFor(result.messages, 'slow')).toMatchObject({ isError: true });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('ends cancelled before the next request when aborted in a turn-end handler', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: 'echo' }] }));
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(
      options({ provider, tools, signal: controller.signal }),
      abortOn(controller, 'turn-end'),
    );
    expect(provider.requests).toHaveLength(1);
    expect(result).toMatchObject({ status: 'cancelled', turns: 1 });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('makes no request when the signal is aborted before the run', async () => {
    const controller = new AbortController();
    controller.abort();
    const provider = new ScriptedProvider([{ text: 'never' }]);
    const { result } = await drainRun(options({ provider, signal: controller.signal }));
    expect(provider.requests).toHaveLength(0);
    expect(result).toMatchObject({ status: 'cancelled', turns: 0 });
  });

  it('ends with a CancelledError whose cause is the signal reason', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: ['a', 'b'] }]);
    const { result } = await drainRun(options({ provider, signal: controller.signal }), (event) => {
      if (event.type === 'text-delta') controller.abort('user pressed ctrl-c');
    });
    expect(CancelledError.isInstance(result.error)).toBe(true);
    expect(result.error?.cause).toBe('user pressed ctrl-c');
  });
});

describe('runLoop failures', () => {
  it('ends with status error and keeps the ProviderError when the provider throws', async () => {
    const error = new ProviderError('overloaded', { kind: 'overloaded', status: 529 });
    const provider = new ScriptedProvider([{ text: 'par', error, eventsBeforeStop: 2 }]);
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(result.error).toBe(error);
  });

  it('keeps a valid history when the provider throws after a tool turn', async () => {
    const error = new ProviderError('boom', { kind: 'server', status: 500 });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo' }] },
      { toolCalls: [{ name: 'echo' }], error, eventsBeforeStop: 4 },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(options({ provider, tools }));
    expect(result).toMatchObject({ status: 'error', turns: 2 });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('ends with status error when the stream ends without message-end', async () => {
    const provider = new ScriptedProvider([{ text: 'half an answer', omitEnd: true }]);
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(ProviderError.isInstance(result.error)).toBe(true);
  });

  it('ends with status error when stream() throws before returning a stream', async () => {
    const provider = new ScriptedProvider([]);
    const { result } = await drainRun(options({ provider }));
    expect(result.status).toBe('error');
    expect(result.error?.message).toMatch(/script exhausted/);
  });

  it('answers the calls of a failed executor as interrupted and ends with error', async () => {
    const failing: ToolExecutor = {
      specs: () => [],
      // biome-ignore lint/correctness/useYield: the executor fails before its first outcome.
      execute: async function* () {
        throw new HarnessError('executor crashed');
      },
    };
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'echo' }] }]);
    const { result } = await drainRun(options({ provider, tools: failing }));
    expect(result.status).toBe('error');
    expect(resultFor(result.messages, 'c1')).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: interruptedResultText('interrupted') }],
    });
  });

  it('throws ConfigError before the first event when options are invalid', async () => {
    const provider = new ScriptedProvider([{ text: 'x' }]);
    const iterator = runLoop(options({ provider, model: '' }));
    await expect(iterator.next()).rejects.toMatchObject({ name: 'ConfigError', field: 'model' });
  });
});

describe('runLoop completion', () => {
  it('completes with text "" when the assistant message is empty', async () => {
    const provider = new ScriptedProvider([{}]);
    const { result } = await drainRun(options({ provider }));
    expect(result).toMatchObject({ status: 'completed', text: '', error: undefined });
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('answers an unknown tool with an isError result when there is no executor', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'nope' }] },
      { text: 'I see, no tools.' },
    ]);
    const { result } = await drainRun(options({ provider }));
    expect(result).toMatchObject({ status: 'completed', text: 'I see, no tools.', turns: 2 });
    const unknown = resultFor(provider.requests[1]?.messages ?? [], 'c1');
    expect(unknown?.isError).toBe(true);
    expect(toolResultText(unknown as ToolResultBlock)).toMatch(/Unknown tool: nope/);
  });

  it('sums usage over turns and returns the last text', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo' }], usage: { inputTokens: 10, outputTokens: 5 } },
      { text: 'done', usage: { inputTokens: 20, outputTokens: 7, cacheReadTokens: 3 } },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(options({ provider, tools }));
    expect(result.text).toBe('done');
    expect(result.usage).toEqual({
      inputTokens: 30,
      outputTokens: 12,
      cacheReadTokens: 3,
      cacheWriteTokens: 0,
    });
  });

  it('ends the event stream with exactly one run-end carrying the returned result', async () => {
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo' }] }, { text: 'done' }]);
    const { events, result } = await drainRun(
      options({ provider, tools: new StubExecutor({ echo: echoTool }) }),
    );
    const ends = eventsOfType(events, 'run-end');
    expect(ends).toHaveLength(1);
    expect(events.at(-1)).toBe(ends[0]);
    expect(ends[0]?.result).toBe(result);
  });
});

describe('runLoop over a history an earlier run settled', () => {
  /** Counts reads of each message's content, keeping the message objects as they are. */
  function countContentReads(messages: readonly Message[]): { reads: number; byIndex: number[] } {
    const counter = { reads: 0, byIndex: messages.map(() => 0) };
    messages.forEach((message, index) => {
      const content = message.content;
      Object.defineProperty(message, 'content', {
        get: () => {
          counter.reads++;
          counter.byIndex[index] = (counter.byIndex[index] ?? 0) + 1;
          return content;
        },
        configurable: true,
      });
    });
    return counter;
  }
  const script = () =>
    new ScriptedProvider([{ toolCalls: [{ id: 'c1', name: 'echo' }] }, { text: 'done' }]);
  const tools = new StubExecutor({ echo: echoTool });

  it('checks and repairs only what follows the settled messages', async () => {
    const first = await drainRun(options({ provider: script(), tools }));
    const settled = first.result.messages;
    const counter = countContentReads(settled);
    const next = await drainRun(
      options({
        provider: new ScriptedProvider([{ text: 'again' }]),
        history: [...settled, userMessage('and now?', 'u1')],
      }),
    );
    expect(next.result.status).toBe('completed');
    // Only the last settled message is looked at (the prompt's neighbour), whatever the length.
    expect(counter.byIndex.slice(0, -1).every((reads) => reads === 0)).toBe(true);
    expect(counter.reads).toBeLessThanOrEqual(4);
    expect(validateHistory(next.result.messages)).toEqual([]);
    expect(next.result.messages.slice(0, settled.length)).toEqual(settled);
    // The same messages as copies were never settled: every one is checked.
    const copies = structuredClone([...next.result.messages]);
    const copied = countContentReads(copies);
    await drainRun(
      options({
        provider: new ScriptedProvider([{ text: 'once more' }]),
        history: [...copies, userMessage('last', 'u2')],
      }),
    );
    expect(copied.reads).toBeGreaterThan(copies.length);
  });

  it('checks again a returned history whose messages the caller replaced in place', async () => {
    const first = await drainRun(options({ provider: script(), tools }));
    const malformed = first.result.messages as Message[];
    malformed[0] = { id: 'bad', role: 'user', content: 'not-an-array' } as unknown as Message;
    malformed.push(userMessage('next', 'u1'));
    await expect(
      drainRun(options({ provider: new ScriptedProvider([{ text: 'x' }]), history: malformed })),
    ).rejects.toThrow(/history\[0\]\.content/);

    const second = await drainRun(options({ provider: script(), tools }));
    const unpaired = second.result.messages as Message[];
    // The results of the first call are replaced: the call must be answered again.
    unpaired[2] = userMessage('no results here', 'ux');
    unpaired.push(userMessage('next', 'u2'));
    const next = await drainRun(
      options({ provider: new ScriptedProvider([{ text: 'x' }]), history: unpaired }),
    );
    expect(next.result.repairs.map((repair) => repair.kind)).toContain('synthesized-result');
    expect(validateHistory(next.result.messages)).toEqual([]);
  });

  it('reports as newMessages the prompt and what the run added, settled prefix or not', async () => {
    const first = await drainRun(options({ provider: script(), tools }));
    expect(first.result.newMessages.map((m) => m.id)).toEqual(
      first.result.messages.map((m) => m.id),
    );
    const prompt = userMessage('and now?', 'u1');
    const next = await drainRun(
      options({ provider: script(), tools, history: [...first.result.messages, prompt] }),
    );
    expect(next.result.newMessages[0]).toBe(prompt);
    expect(next.result.newMessages).toHaveLength(4);
    expect(next.result.messages.slice(-4)).toEqual(next.result.newMessages);
  });

  it('checks a second branch of the same settled history in full, and keeps both valid', async () => {
    const first = await drainRun(options({ provider: script(), tools }));
    const base = first.result.messages;
    // Branch A takes the settled prefix and reuses the call id c1 (renamed: it is taken). It is
    // still running, past the check that took its renamed call, when branch B starts.
    const loopA = runLoop(
      options({ provider: script(), tools, history: [...base, userMessage('a', 'ua')] }),
    );
    let turnStarts = 0;
    while (turnStarts < 2) {
      const next = await loopA.next();
      if (next.done) throw new Error('branch A ended early');
      if (next.value.type === 'turn-start') turnStarts++;
    }
    // Branch B starts from the same base: A's call ids must not leak into its checks.
    const branchB = await drainRun(
      options({
        // A call id branch A's run took: free again on this branch.
        provider: new ScriptedProvider([
          { toolCalls: [{ id: 'c1_2', name: 'echo' }] },
          { text: 'b' },
        ]),
        tools,
        history: [...base, userMessage('b', 'ub')],
      }),
    );
    let endA = await loopA.next();
    while (!endA.done) endA = await loopA.next();
    const branchA = { result: endA.value };
    for (const run of [branchA, branchB]) {
      expect(run.result.status).toBe('completed');
      expect(validateHistory(run.result.messages)).toEqual([]);
    }
    const callIds = (messages: readonly Message[]) =>
      messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
    expect(callIds(branchA.result.messages)).toEqual(['c1', 'c1_2']);
    expect(callIds(branchB.result.messages)).toEqual(['c1', 'c1_2']);
  });
});

describe('runLoop and Provider.settle', () => {
  /** A script provider whose settle turns a guard into an error, recording what it saw. */
  function settling(settle: Provider['settle']): ScriptedProvider & { seen: RunResult[] } {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo' }] },
      { toolCalls: [{ name: 'echo' }] },
      { text: 'done' },
    ]) as ScriptedProvider & { seen: RunResult[]; settle?: Provider['settle'] };
    provider.seen = [];
    provider.settle = (result) => {
      provider.seen.push(result);
      return settle?.(result) ?? result;
    };
    return provider;
  }
  const drift = new HarnessError('the run stopped before its recording did');

  it('reports the result the provider settles, in run-end, the return value and the run span', async () => {
    const provider = settling((result) =>
      result.status === 'guard'
        ? { ...result, status: 'error', guard: undefined, error: drift }
        : result,
    );
    const tracer = new InMemoryTracer();
    const { events, result } = await drainRun(
      options({
        provider,
        tools: new StubExecutor({ echo: echoTool }),
        limits: { maxTurns: 1 },
        tracer,
      }),
    );
    expect(provider.seen.map((seen) => [seen.status, seen.guard])).toEqual([
      ['guard', 'max-turns'],
    ]);
    expect(result).toMatchObject({ status: 'error', guard: undefined, error: drift });
    expect(eventsOfType(events, 'run-end')[0]?.result).toBe(result);
    const run = tracer.records().find((span) => span.name === 'mh.run');
    expect(run?.attributes['mh.run.status']).toBe('error');
    expect(run?.attributes['mh.guard']).toBeUndefined();
    expect(validateHistory(result.messages)).toEqual([]);
  });

  it('keeps the run’s own result when settle throws or has nothing to change', async () => {
    const throwing = settling(() => {
      throw new Error('bookkeeping broke');
    });
    const tools = new StubExecutor({ echo: echoTool });
    const { result } = await drainRun(options({ provider: throwing, tools }));
    expect(result).toMatchObject({ status: 'completed', text: 'done' });
    const quiet = settling(undefined);
    const second = await drainRun(options({ provider: quiet, tools, limits: { maxTurns: 1 } }));
    expect(second.result).toMatchObject({ status: 'guard', guard: 'max-turns' });
    expect(quiet.seen).toHaveLength(1);
  });
});

describe('runLoop history checks', () => {
  const brokenHistory: Message[] = [
    userMessage('first question', 'u1'),
    {
      id: 'a1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'lost', name: 'echo', input: {} }],
    },
    {
      id: 'u2',
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'ghost', content: [], isError: false },
        { type: 'text', text: 'second question' },
      ],
    },
  ];

  it('yields a history-repair event when the input history is invalid', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    const { events } = await drainRun(options({ provider, history: brokenHistory }));
    const repairs = eventsOfType(events, 'history-repair').flatMap((event) => event.repairs);
    expect(repairs.map((repair) => repair.kind).sort()).toEqual([
      'dropped-orphan-result',
      'synthesized-result',
    ]);
  });

  it('sends the provider a valid history on every request', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'echo', input: { a: 1 } }, { name: 'nope' }] },
      { toolCalls: [{ name: 'echo', input: { a: 2 } }] },
      { text: 'done' },
    ]);
    const tools = new StubExecutor({ echo: echoTool });
    await drainRun(options({ provider, tools, history: brokenHistory }));
    expect(provider.requests).toHaveLength(3);
    for (const request of provider.requests) expect(validateHistory(request.messages)).toEqual([]);
  });

  it('keeps the user text of a repaired input history', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    await drainRun(options({ provider, history: brokenHistory }));
    const sent = provider.requests[0]?.messages ?? [];
    expect(sent.filter((message) => message.role === 'user').map(messageText)).toEqual([
      'first question',
      'second question',
    ]);
  });

  it('records the input repairs in the RunResult', async () => {
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    const { result } = await drainRun(options({ provider, history: brokenHistory }));
    expect(result.repairs).toHaveLength(2);
  });
});

describe('runLoop backpressure', () => {
  const STREAM_EVENT_TYPES = new Set<string>([
    'message-start',
    'text-delta',
    'thinking-delta',
    'tool-call-start',
    'tool-call-delta',
    'tool-call-end',
    'usage',
    'stream-reset',
    'message-end',
  ]);

  it('does not pull the provider ahead of a slow consumer', async () => {
    const provider = new ScriptedProvider([
      { text: Array.from({ length: 20 }, (_, i) => `${i} `) },
    ]);
    const iterator = runLoop(options({ provider }));
    let received = 0;
    let maxLead = 0;
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (STREAM_EVENT_TYPES.has(next.value.type)) received++;
      await tick(2);
      maxLead = Math.max(maxLead, provider.produced - received);
    }
    expect(received).toBe(23);
    expect(maxLead).toBeLessThanOrEqual(1);
  });

  it('aborts the signal of a running tool when the consumer stops iterating', async () => {
    let toolSignal: AbortSignal | undefined;
    const tools = new StubExecutor({
      slow: (input, signal, call) => {
        toolSignal = signal;
        return hangUntilAbortedTool(input, signal, call);
      },
    });
    // The first call runs once the consumer pulls past its start: here, to the second's start.
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { id: 'c1', name: 'slow' },
          { id: 'c2', name: 'slow' },
        ],
      },
    ]);
    const iterator = runLoop(options({ provider, tools }));
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.type === 'tool-execution-start' && next.value.call.id === 'c2') break;
    }
    await iterator.return(undefined as never);
    expect(toolSignal?.aborted).toBe(true);
  });

  it('does not run a tool whose start the consumer holds when it stops iterating', async () => {
    const tools = new StubExecutor({ slow: hangUntilAbortedTool });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'slow' }] }]);
    const iterator = runLoop(options({ provider, tools }));
    for (;;) {
      const next = await iterator.next();
      if (next.done || next.value.type === 'tool-execution-start') break;
    }
    await iterator.return(undefined as never);
    expect(tools.started).toEqual([]);
  });

  it('does not run the next turn while the consumer holds a turn-end event', async () => {
    const provider = new ScriptedProvider(() => ({ toolCalls: [{ name: 'echo' }] }));
    const iterator = runLoop(
      options({ provider, tools: new StubExecutor({ echo: echoTool }), limits: { maxTurns: 5 } }),
    );
    for (;;) {
      const next = await iterator.next();
      if (next.done || next.value.type === 'turn-end') break;
    }
    await tick(20);
    expect(provider.requests).toHaveLength(1);
    await iterator.return(undefined as never);
  });
});
