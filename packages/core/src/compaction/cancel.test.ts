import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import type { Summarizer } from '../ports/summarizer.js';
import { ManualClock } from '../testing/manual-clock.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';

const WINDOW = 20_000;

/**
 * A conversation of plain text turns (~22k tokens) ending with a new prompt: over the threshold
 * of a 20k window, with nothing to trim, so the first compaction goes straight to a summary.
 */
function longConversation(): Message[] {
  const history: Message[] = [];
  for (let n = 0; n < 12; n++) {
    history.push({
      id: `u${n}`,
      role: 'user',
      content: [
        { type: 'text', text: `Question ${n} on ORD-${1_000 + n}: ${'detail '.repeat(450)}` },
      ],
    });
    history.push({
      id: `a${n}`,
      role: 'assistant',
      content: [{ type: 'text', text: `Answer ${n}. ${'finding '.repeat(400)}` }],
    });
  }
  history.push({ id: 'prompt', role: 'user', content: [{ type: 'text', text: 'And now?' }] });
  return history;
}

/** A summariser that starts its call, runs `onCall`, and never settles nor looks at its signal. */
function deafSummarizer(onCall: () => void): Summarizer {
  return {
    summarize() {
      onCall();
      return new Promise<never>(() => {});
    },
  };
}

describe('compaction and cancellation', () => {
  it('ends a run cancelled during a summary call that ignores its signal, history untouched', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([{ text: 'never asked' }]);
    const history = longConversation();
    const { result } = await drainRun({
      provider,
      model: 'test-model',
      history,
      signal: controller.signal,
      compaction: {
        contextWindow: WINDOW,
        summarizer: deafSummarizer(() => queueMicrotask(() => controller.abort())),
      },
    });
    expect(result.status).toBe('cancelled');
    expect(provider.requests).toHaveLength(0);
    expect(result.messages).toEqual(history);
    expect(result.compactions.map((record) => record.stage)).toEqual(['skipped']);
    expect(result.compactions[0]?.reason).toMatch(/cancelled during the summary call/);
  });

  it('does not fall back to trimming or dropping when a summary call is cancelled', async () => {
    const controller = new AbortController();
    const honouring: Summarizer = {
      summarize: (request) =>
        new Promise<never>((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => reject(new Error('request aborted')));
          queueMicrotask(() => controller.abort());
        }),
    };
    const history = longConversation();
    const { result } = await drainRun({
      provider: new ScriptedProvider([{ text: 'never asked' }]),
      model: 'test-model',
      history,
      signal: controller.signal,
      compaction: { contextWindow: WINDOW, summarizer: honouring },
    });
    expect(result.status).toBe('cancelled');
    expect(result.messages).toEqual(history);
    expect(validateHistory(result.messages)).toEqual([]);
    expect(result.compactions.map((record) => record.stage)).toEqual(['skipped']);
    expect(result.compactions[0]?.reason).not.toMatch(/summary call failed/);
  });

  it('trips the timeout guard during a summary call that ignores its signal', async () => {
    const clock = new ManualClock();
    const history = longConversation();
    const { result } = await drainRun({
      provider: new ScriptedProvider([{ text: 'never asked' }]),
      model: 'test-model',
      history,
      clock,
      limits: { timeoutMs: 60_000 },
      compaction: {
        contextWindow: WINDOW,
        summarizer: deafSummarizer(() => clock.advance(60_001)),
      },
    });
    expect(result.status).toBe('guard');
    expect(result.guard).toBe('timeout');
    expect(result.messages).toEqual(history);
  });
});
