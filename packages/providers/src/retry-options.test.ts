import { type Provider, systemClock } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { resolveRetryOptions, type WithRetryOptions } from './retry-options.js';
import { withRetry } from './retrying-provider.js';

const inner: Provider = {
  name: 'inner',
  stream: async function* () {},
};

describe('resolveRetryOptions', () => {
  it('fills in the documented defaults', () => {
    expect(resolveRetryOptions(undefined)).toEqual({
      maxAttempts: 3,
      baseDelayMs: 500,
      maxDelayMs: 8000,
      maxRetryAfterMs: 60_000,
      idleTimeoutMs: 60_000,
      clock: systemClock,
      random: Math.random,
      onRetry: undefined,
    });
  });

  it('accepts 0 to disable the idle timeout and Infinity to honour any retry-after', () => {
    const settings = resolveRetryOptions({ idleTimeoutMs: 0, maxRetryAfterMs: Infinity });
    expect([settings.idleTimeoutMs, settings.maxRetryAfterMs]).toEqual([0, Infinity]);
  });

  const invalid: [string, unknown][] = [
    ['options', 'fast'],
    ['options', null],
    ['maxAttempts', 0],
    ['maxAttempts', 1.5],
    ['maxAttempts', '3'],
    ['baseDelayMs', -1],
    ['baseDelayMs', Number.NaN],
    ['baseDelayMs', Infinity],
    ['maxDelayMs', -5],
    ['maxDelayMs', '8000'],
    ['maxRetryAfterMs', -1],
    ['maxRetryAfterMs', Number.NaN],
    ['idleTimeoutMs', -1],
    ['idleTimeoutMs', Infinity],
    ['clock', { now: () => 0 }],
    ['clock', null],
    ['random', 0.5],
    ['onRetry', 'log'],
  ];

  it.each(invalid)('rejects a bad %s (%s) with a ConfigError naming it', (field, value) => {
    const options = (field === 'options' ? value : { [field]: value }) as WithRetryOptions;
    expect(fieldOf(() => resolveRetryOptions(options))).toBe(field);
  });
});

describe('withRetry options', () => {
  it('rejects a misspelt option with ConfigError naming it', () => {
    const options = { maxAttempt: 5 } as unknown as WithRetryOptions;
    expect(fieldOf(() => withRetry(inner, options))).toBe('maxAttempt');
  });

  it('validates its options when wrapping', () => {
    expect(fieldOf(() => withRetry(inner, { maxAttempts: -1 }))).toBe('maxAttempts');
  });

  it.each([null, {}, { name: 'x', stream: 'no' }])('rejects a provider like %j', (provider) => {
    expect(fieldOf(() => withRetry(provider as unknown as Provider))).toBe('provider');
  });
});
