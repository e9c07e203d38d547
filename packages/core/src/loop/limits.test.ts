import { describe, expect, it } from 'vitest';
import { drainRun } from '../../test/drain-run.js';
import { ConfigError } from '../errors.js';
import { userMessage } from '../messages/message.js';
import { ScriptedProvider } from '../testing/scripted-provider.js';
import { RepeatedCallCounter, validateLimits } from './limits.js';

function configErrorOf(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('validateLimits', () => {
  it('returns an empty object when limits are undefined', () => {
    expect(validateLimits(undefined)).toEqual({});
  });

  it('returns valid limits unchanged', () => {
    const limits = {
      maxTurns: 3,
      maxTokens: 1000,
      maxCostUsd: 0.5,
      maxRepeatedCalls: 2,
      timeoutMs: 1500.5,
    };
    expect(validateLimits(limits)).toEqual(limits);
  });

  it.each([
    [{ maxTurns: 0 }, 'limits.maxTurns'],
    [{ maxTurns: -1 }, 'limits.maxTurns'],
    [{ maxTurns: 1.5 }, 'limits.maxTurns'],
    [{ maxTurns: '3' }, 'limits.maxTurns'],
    [{ maxTokens: Number.NaN }, 'limits.maxTokens'],
    [{ maxTokens: 10.5 }, 'limits.maxTokens'],
    [{ maxCostUsd: -0.01 }, 'limits.maxCostUsd'],
    [{ maxCostUsd: Number.POSITIVE_INFINITY }, 'limits.maxCostUsd'],
    [{ maxRepeatedCalls: 0 }, 'limits.maxRepeatedCalls'],
    [{ timeoutMs: 0 }, 'limits.timeoutMs'],
    [{ timeoutMs: null }, 'limits.timeoutMs'],
    [{ maxTurn: 3 }, 'limits.maxTurn'],
  ])('rejects %o with a ConfigError naming %s', (limits, field) => {
    expect(configErrorOf(() => validateLimits(limits)).field).toBe(field);
  });

  it.each([[null], [[]], [5], ['limits']])('rejects %o as a whole, naming limits', (limits) => {
    expect(configErrorOf(() => validateLimits(limits)).field).toBe('limits');
  });

  it('quotes a string given for a number, so "3" is not shown as 3', () => {
    const limits = { maxTurns: '3' } as unknown as Parameters<typeof validateLimits>[0];
    expect(configErrorOf(() => validateLimits(limits)).message).toContain('got "3" (a string)');
  });

  it('prefixes fields with the given path', () => {
    expect(configErrorOf(() => validateLimits({ maxTurns: 0 }, 'agent.limits')).field).toBe(
      'agent.limits.maxTurns',
    );
  });

  it('makes runLoop throw before any request when a limit is invalid', async () => {
    const provider = new ScriptedProvider([{ text: 'x' }]);
    const run = drainRun({
      provider,
      model: 'test-model',
      history: [userMessage('go')],
      limits: { maxTurns: 0 },
    });
    await expect(run).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && error.field === 'limits.maxTurns',
    );
    expect(provider.requests).toHaveLength(0);
  });
});

describe('RepeatedCallCounter', () => {
  const call = (name: string, input: unknown, id = 'c') =>
    ({ type: 'tool_use', id, name, input }) as const;

  it('counts repeats of the same tool with the same arguments', () => {
    const counter = new RepeatedCallCounter();
    expect([
      counter.count(call('read', { path: 'a' }, '1')),
      counter.count(call('read', { path: 'a' }, '2')),
      counter.count(call('read', { path: 'a' }, '3')),
    ]).toEqual([1, 2, 3]);
  });

  it('counts arguments that differ only in key order as the same call', () => {
    const counter = new RepeatedCallCounter();
    counter.count(call('read', { a: 1, b: { c: 2, d: 3 } }));
    expect(counter.count(call('read', { b: { d: 3, c: 2 }, a: 1 }))).toBe(2);
  });

  it('counts other tools and other arguments separately', () => {
    const counter = new RepeatedCallCounter();
    counter.count(call('read', { path: 'a' }));
    expect([
      counter.count(call('write', { path: 'a' })),
      counter.count(call('read', { path: 'b' })),
    ]).toEqual([1, 1]);
  });

  it('counts unparseable calls with different raw text as different calls', () => {
    const counter = new RepeatedCallCounter();
    const broken = (rawInput: string) => ({ ...call('read', {}), rawInput });
    expect([
      counter.count(broken('{"a":')),
      counter.count(broken('{"b":')),
      counter.count(broken('{"c":')),
    ]).toEqual([1, 1, 1]);
    expect(counter.count(broken('{"a":'))).toBe(2);
  });

  it('does not count an unparseable call as a call with empty arguments', () => {
    const counter = new RepeatedCallCounter();
    counter.count(call('read', {}));
    expect(counter.count({ ...call('read', {}), rawInput: '{}' })).toBe(1);
  });

  it('does not confuse a __proto__ argument with no argument', () => {
    const counter = new RepeatedCallCounter();
    counter.count(call('read', {}));
    expect(counter.count(call('read', JSON.parse('{"__proto__":{"path":"/etc"}}')))).toBe(1);
  });
});

describe('validateLimits timeoutMs ceiling', () => {
  it('rejects a timeout longer than a Node timer can wait, naming the field', () => {
    expect(() => validateLimits({ timeoutMs: 30 * 24 * 3_600_000 })).toThrow(
      expect.objectContaining({ field: 'limits.timeoutMs' }),
    );
  });
});
