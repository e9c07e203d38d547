import { ConfigError, type Provider, runLoop } from '@mh/core';
import { ScriptedProvider } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';

/** The Agent checks its settings once, in its constructor; each mistake has one message. */

function countingProvider(): { provider: Provider; lookups: () => number } {
  const inner = new ScriptedProvider((index) => ({ text: `answer ${index}` }));
  let lookups = 0;
  const provider = new Proxy(inner, {
    get(target, key) {
      if (key === 'stream') lookups++;
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { provider, lookups: () => lookups };
}

function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('an Agent resolves its loop settings once', () => {
  it('looks at its provider once to check it, then only to call it', async () => {
    const { provider, lookups } = countingProvider();
    const agent = new Agent({ provider, model: 'm', limits: { maxTurns: 3 } });
    expect(lookups()).toBe(1);
    for (let run = 0; run < 5; run++) {
      expect((await agent.run(`question ${run}`, { limits: { maxTurns: 2 } })).status).toBe(
        'completed',
      );
    }
    expect(lookups()).toBe(1 + 5);
  });

  it('words each mistake the same as the loop does', async () => {
    const provider = new ScriptedProvider([]);
    const cases: [Record<string, unknown>, string][] = [
      [{ provider, model: '' }, 'model'],
      [{ provider: {}, model: 'm' }, 'provider'],
      [{ provider, model: 'm', temperature: -1 }, 'temperature'],
      [{ provider, model: 'm', limits: { maxTurns: 0 } }, 'limits.maxTurns'],
      [{ provider, model: 'unpriced', limits: { maxCostUsd: 1 } }, 'limits.maxCostUsd'],
    ];
    for (const [options, field] of cases) {
      const fromAgent = configError(() => new Agent(options as never));
      const fromLoop = await runLoop({ ...options, history: [] } as never)
        .next()
        .then(
          () => undefined,
          (error: unknown) => error as ConfigError,
        );
      expect(fromAgent.field, field).toBe(field);
      expect(fromLoop?.message, field).toBe(fromAgent.message);
    }
  });

  it("checks a run's limits under the run's own name", async () => {
    const agent = new Agent({ provider: new ScriptedProvider([]), model: 'm' });
    await expect(agent.run('q', { limits: { maxTurns: 0 } })).rejects.toMatchObject({
      field: 'options.limits.maxTurns',
    });
  });
});
