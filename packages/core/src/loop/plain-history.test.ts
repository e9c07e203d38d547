import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { validateHistory } from '../messages/history.js';
import type { Message } from '../messages/message.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { StubExecutor } from '../testing/stub-executor.js';

// runLoop with a plain array (not lent, see `lendHistory`): the caller's array is left as it was,
// the result's messages are the array onSettled gets, and a settled array changed in place and
// passed back is checked again.

const text = (id: string, role: 'user' | 'assistant', value: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: value }],
});

function options() {
  return {
    provider: new ScriptedProvider((index) =>
      index % 2 === 0 ? { toolCalls: [{ name: 'echo', input: {} }] } : { text: 'done' },
    ),
    tools: new StubExecutor({ echo: async () => 'echoed' }),
    model: 'claude-sonnet-4-5',
  };
}

describe('runLoop on a plain array', () => {
  it('does not touch the given array; messages is a plain property, the array given to onSettled', async () => {
    const given = [text('q', 'user', 'hi')];
    const frozen = [...given];
    let settled: readonly Message[] | undefined;
    const { result } = await drainRun({
      ...options(),
      history: given,
      onSettled: (h) => (settled = h),
    });
    expect(given).toEqual(frozen);
    expect(given).toHaveLength(1);
    const descriptor = Object.getOwnPropertyDescriptor(result, 'messages');
    expect(descriptor && 'value' in descriptor).toBe(true);
    expect(result.messages).toBe(settled);
    expect(result.messages).toHaveLength(4);
  });

  it('a settled array changed in place and passed back is checked again (not trusted by identity)', async () => {
    const { result } = await drainRun({ ...options(), history: [text('q', 'user', 'hi')] });
    const history = result.messages as Message[];
    // Replace the tool result message below the settled length with a broken one, then go on.
    const resultIndex = history.findIndex((m) => m.content.some((b) => b.type === 'tool_result'));
    history[resultIndex] = text('swapped', 'user', 'no result here');
    history.push(text('q2', 'user', 'again'));
    const { result: next } = await drainRun({ ...options(), history });
    expect(next.repairs.length).toBeGreaterThan(0);
    expect(validateHistory(next.messages)).toEqual([]);
  });

  it('results of runs on plain arrays read late are as left', async () => {
    let history: Message[] = [text('q0', 'user', 'hi')];
    const results = [];
    for (let run = 0; run < 3; run++) {
      const { result } = await drainRun({ ...options(), history });
      results.push({ result, length: result.messages.length });
      history = [...result.messages, text(`q${run + 1}`, 'user', 'again')];
    }
    for (const [n, { result, length }] of results.entries()) {
      expect(result.messages).toHaveLength(length);
      expect(result.messages).toHaveLength(4 + n * 4);
      expect(validateHistory(result.messages)).toEqual([]);
    }
  });
});
