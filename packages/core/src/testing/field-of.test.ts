import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { fieldOf } from './field-of.js';

describe('fieldOf', () => {
  it('returns the field of a thrown ConfigError', () => {
    expect(
      fieldOf(() => {
        throw new ConfigError('limits.maxTurns', 'bad');
      }),
    ).toBe('limits.maxTurns');
  });

  it('returns the field of a ConfigError an async action rejects with', async () => {
    expect(
      await fieldOf(async () => {
        throw new ConfigError('schema', 'bad');
      }),
    ).toBe('schema');
  });

  it('returns undefined when the action succeeds', async () => {
    expect(fieldOf(() => 1)).toBeUndefined();
    expect(await fieldOf(async () => 1)).toBeUndefined();
  });

  it('rethrows an error that is not a ConfigError', async () => {
    expect(() =>
      fieldOf(() => {
        throw new TypeError('boom');
      }),
    ).toThrow('boom');
    await expect(fieldOf(() => Promise.reject(new TypeError('late')))).rejects.toThrow('late');
  });
});
