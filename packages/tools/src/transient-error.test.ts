import { ToolTimeoutError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { isTransientError } from './transient-error.js';

const withCode = (code: string): Error => Object.assign(new Error(code), { code });

describe('isTransientError', () => {
  it('accepts an error marked transient', () => {
    expect(isTransientError(Object.assign(new Error('busy'), { transient: true }))).toBe(true);
  });

  it('accepts a ToolTimeoutError', () => {
    expect(isTransientError(new ToolTimeoutError('slow', 100))).toBe(true);
  });

  it.each(['ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNREFUSED', 'EPIPE'])(
    'accepts the network code %s',
    (code) => {
      expect(isTransientError(withCode(code))).toBe(true);
    },
  );

  it('accepts a network code found on the cause, as fetch reports it', () => {
    const error = new TypeError('fetch failed', { cause: withCode('ECONNRESET') });
    expect(isTransientError(error)).toBe(true);
  });

  it('rejects ordinary errors, other codes and non-errors', () => {
    expect(isTransientError(new Error('bug'))).toBe(false);
    expect(isTransientError(withCode('ENOENT'))).toBe(false);
    expect(isTransientError(Object.assign(new Error('x'), { transient: 'yes' }))).toBe(false);
    expect(isTransientError('ECONNRESET')).toBe(false);
    expect(isTransientError(undefined)).toBe(false);
  });
});
