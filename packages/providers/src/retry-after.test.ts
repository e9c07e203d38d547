import { describe, expect, it } from 'vitest';
import { retryAfterMs, shouldRetryHeader } from './retry-after.js';

describe('retryAfterMs', () => {
  it('prefers retry-after-ms in milliseconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500.5', 'retry-after': '9' }))).toBe(
      1500.5,
    );
  });

  it('reads retry-after as seconds', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
  });

  it('reads retry-after as an HTTP date relative to now', () => {
    const now = Date.parse('2026-12-02T10:00:00Z');
    expect(retryAfterMs({ 'retry-after': 'Wed, 02 Dec 2026 10:00:03 GMT' }, now)).toBe(3000);
  });

  it('ignores garbage and negative values', () => {
    expect(retryAfterMs({ 'retry-after': 'soon', 'retry-after-ms': '-5' })).toBeUndefined();
  });

  it('is undefined without headers', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('shouldRetryHeader', () => {
  it('reads x-should-retry', () => {
    expect([shouldRetryHeader({ 'x-should-retry': 'false' }), shouldRetryHeader({})]).toEqual([
      false,
      undefined,
    ]);
  });
});
