import { HarnessError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { SessionStoreConformanceError } from './conformance-error.js';

describe('SessionStoreConformanceError', () => {
  it('is recognised from this copy and from another one, by its brand name', () => {
    const error = new SessionStoreConformanceError({
      seed: 1,
      path: '0:1',
      commands: ['commit'],
      failure: 'head moved',
    });
    expect(SessionStoreConformanceError.isInstance(error)).toBe(true);
    expect(HarnessError.isInstance(error)).toBe(true);
    const foreign = { [Symbol.for('mh.error.SessionStoreConformanceError')]: true };
    expect(SessionStoreConformanceError.isInstance(foreign)).toBe(true);
    expect(SessionStoreConformanceError.isInstance(new HarnessError('x'))).toBe(false);
  });
});
