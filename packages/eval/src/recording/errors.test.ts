import { CancelledError, HarnessError, ProviderError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { recordError, replayError } from './errors.js';

describe('recordError / replayError', () => {
  it('replays a ProviderError with the same kind, status, retryable flag and wait', () => {
    const original = new ProviderError('429 rate limited', {
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 2000,
      provider: 'anthropic',
      cause: { headers: { 'x-api-key': 'secret' } },
    });
    const recorded = recordError(original);
    expect(JSON.stringify(recorded)).not.toContain('secret');
    const replayed = replayError(JSON.parse(JSON.stringify(recorded)));
    expect(ProviderError.isInstance(replayed)).toBe(true);
    expect(replayed).toMatchObject({
      message: '429 rate limited',
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      retryAfterMs: 2000,
      provider: 'anthropic',
    });
  });

  it('keeps an explicit retryable flag that differs from the default', () => {
    const original = new ProviderError('overloaded', {
      kind: 'overloaded',
      status: 529,
      retryable: false,
    });
    expect(replayError(recordError(original))).toMatchObject({ retryable: false, status: 529 });
  });

  it('replays a CancelledError, a harness error and a plain error under their names', () => {
    expect(CancelledError.isInstance(replayError(recordError(new CancelledError('stop'))))).toBe(
      true,
    );
    const harness = replayError(recordError(new HarnessError('malformed')));
    expect(HarnessError.isInstance(harness)).toBe(true);
    expect(harness.name).toBe('HarnessError');
    const plain = replayError(recordError(new TypeError('x is undefined')));
    expect(HarnessError.isInstance(plain)).toBe(false);
    expect([plain.name, plain.message]).toEqual(['TypeError', 'x is undefined']);
    expect(replayError(recordError('just a string'))).toMatchObject({ message: 'just a string' });
  });

  it('answers an unknown recorded kind with a server error instead of crashing', () => {
    const replayed = replayError({ name: 'ProviderError', message: 'x', kind: 'solar-flare' });
    expect(replayed).toMatchObject({ kind: 'server' });
  });
});
