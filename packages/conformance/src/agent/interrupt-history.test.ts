import { ConfigError, type Message } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { AgentModel } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import { expectRefused, resultOf } from './interrupt-history.js';

const answer = (callId: string, text: string, isError: boolean): Message => ({
  id: `r-${callId}`,
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: callId, content: [{ type: 'text', text }], isError }],
});

/** A world with nothing stored: enough for what a refused decision must leave untouched. */
function world(counts: { calls: number; sent: string[] }): AgentWorld {
  return {
    model: counts,
    tools: { sent: () => counts.sent },
  } as unknown as AgentWorld;
}

describe('resultOf', () => {
  it("finds a call's result text and whether it is an error", () => {
    const messages = [answer('c1', 'ok', false), answer('c2', 'Not run: no', true)];
    expect(resultOf(messages, 'c2')).toEqual({ text: 'Not run: no', isError: true });
    expect(resultOf(messages, 'c3')).toBeUndefined();
  });
});

describe('expectRefused', () => {
  const model = new AgentModel();

  it('passes when the attempt throws a ConfigError naming the field and changes nothing', async () => {
    const refusal = async (): Promise<never> => {
      throw new ConfigError('options.decisions[0].callId', 'no such call');
    };
    await expect(
      expectRefused(
        model,
        world({ calls: 0, sent: [] }),
        refusal,
        'options.decisions[0].callId',
        'x',
      ),
    ).resolves.toBeUndefined();
  });

  it('fails when the attempt resolves', async () => {
    await expect(
      expectRefused(model, world({ calls: 0, sent: [] }), async () => 'done', 'f', 'x'),
    ).rejects.toThrow(/expected a ConfigError naming f/);
  });

  it('fails when the error names another field', async () => {
    const refusal = async (): Promise<never> => {
      throw new ConfigError('options.decisions[0].token', 'stale');
    };
    await expect(
      expectRefused(
        model,
        world({ calls: 0, sent: [] }),
        refusal,
        'options.decisions[0].callId',
        'x',
      ),
    ).rejects.toThrow(/naming options.decisions\[0\].callId, got ConfigError/);
  });

  it('fails when a refused attempt still ran something', async () => {
    const counts = { calls: 0, sent: [] as string[] };
    const refusal = async (): Promise<never> => {
      counts.calls++;
      counts.sent.push('c1');
      throw new ConfigError('f', 'refused late');
    };
    await expect(expectRefused(model, world(counts), refusal, 'f', 'x')).rejects.toThrow(
      /was refused but changed something/,
    );
  });
});
