import {
  type AgentEvent,
  messageText,
  ProviderError,
  type RunResult,
  runLoop,
  type ToolExecutor,
  toolUsesOf,
  type Usage,
  userMessage,
  validateHistory,
} from '@mh/core';
import { ManualClock, StubExecutor } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { attemptsOf } from '../src/retry-attempts.js';
import { withRetry } from '../src/retrying-provider.js';
import { ScriptedProvider, type ScriptStep } from '../src/scripted-provider.js';

/** Backoff waits pass at once; the idle timer is off in these tests, so nothing else sleeps. */
const instantClock = new ManualClock(0, { instant: true });

const usageOf = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

async function runWithRetry(
  steps: readonly ScriptStep[],
  tools?: ToolExecutor,
): Promise<{ result: RunResult; events: AgentEvent[]; inner: ScriptedProvider }> {
  const inner = new ScriptedProvider(steps, { chunkChars: 5 });
  const provider = withRetry(inner, { clock: instantClock, idleTimeoutMs: 0, random: () => 0 });
  const loop = runLoop({ provider, model: 'test-model', history: [userMessage('go')], tools });
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await loop.next();
    if (next.done) return { result: next.value, events, inner };
    events.push(next.value);
  }
}

describe('withRetry inside runLoop', () => {
  const text = 'The answer is forty-two.';

  it('keeps the replayed text once in the history and bills the failed attempt', async () => {
    // message-start, 5 text deltas, usage, message-end: break just before message-end.
    const { result, events } = await runWithRetry([
      { text, usage: usageOf(100, 5), failAfterEvents: 7 },
      { text, usage: usageOf(100, 8) },
    ]);
    expect(result.status).toBe('completed');
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messageText(result.messages[1] ?? userMessage(''))).toBe(text);
    expect(result.usage).toEqual(usageOf(200, 13));
    const lastReset = events.findLastIndex((event) => event.type === 'stream-reset');
    const replayed = events.slice(lastReset + 1);
    const deltas = replayed.map((event) => (event.type === 'text-delta' ? event.text : ''));
    expect(deltas.join('')).toBe(text);
  });

  const call = { id: 'call_1', name: 'write_file', input: { path: 'a.txt', content: 'hello' } };
  // Events: message-start, 2 text deltas, tool-call-start, 2 tool-call-deltas, tool-call-end,
  // usage, message-end.
  it.each([
    ['inside the tool call JSON', 5],
    ['after tool-call-end, before message-end', 7],
  ])('never runs a tool call from an attempt broken %s', async (_where, failAfterEvents) => {
    const executor = new StubExecutor({ write_file: async () => 'written' });
    const { result, inner } = await runWithRetry(
      [
        { text: 'Writing.', toolCalls: [call], failAfterEvents },
        { text: 'Writing.', toolCalls: [call] },
        { text: 'Done.' },
      ],
      executor,
    );
    expect(result.status).toBe('completed');
    expect(inner.requests).toHaveLength(3);
    expect(executor.started).toHaveLength(1);
    expect(executor.started[0]?.input).toEqual(call.input);
    expect(validateHistory(result.messages)).toEqual([]);
    expect(result.messages.flatMap(toolUsesOf)).toHaveLength(1);
    expect(result.text).toBe('Done.');
  });

  it('ends the run with the quota error after a single attempt', async () => {
    const quota = new ProviderError('You exceeded your current quota', {
      kind: 'quota',
      status: 429,
    });
    const { result, inner } = await runWithRetry([{ error: quota }, { text: 'never' }]);
    expect(result.status).toBe('error');
    expect(result.error).toBe(quota);
    expect(attemptsOf(result.error)).toBe(1);
    expect(inner.requests).toHaveLength(1);
  });
});
