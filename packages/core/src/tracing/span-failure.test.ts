import { describe, expect, it } from 'vitest';
import {
  CancelledError,
  GuardTrippedError,
  HarnessError,
  PermissionDeniedError,
  ProviderError,
  ToolInputError,
  ToolTimeoutError,
} from '../errors.js';
import { InMemoryTracer } from './in-memory-tracer.js';
import { errorKind, recordFailure } from './span-failure.js';

describe('errorKind', () => {
  it('maps each failure to a low-cardinality class, never its message', () => {
    expect(errorKind(new ProviderError('slow down', { kind: 'rate-limit' }))).toBe('rate-limit');
    expect(errorKind(new GuardTrippedError('max-turns', 1, 1))).toBe('guard');
    expect(errorKind(new CancelledError())).toBe('cancelled');
    expect(errorKind(new ToolTimeoutError('grep', 10))).toBe('timeout');
    expect(errorKind(new ToolInputError('grep', ['a: bad']))).toBe('invalid-arguments');
    expect(errorKind(new PermissionDeniedError('rm', 'exec'))).toBe('denied');
    expect(errorKind(new HarnessError('boom'))).toBe('HarnessError');
    expect(errorKind(new TypeError('x is undefined'))).toBe('TypeError');
    expect(errorKind('a string')).toBe('_OTHER');
  });
});

describe('recordFailure', () => {
  it('marks the span failed with error.type, mh.error.kind and an exception event', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('s');
    recordFailure(span, new ProviderError('overloaded', { kind: 'overloaded' }));
    span.end();
    const [record] = tracer.records();
    expect(record?.status).toBe('error');
    expect(record?.attributes).toMatchObject({
      'error.type': 'overloaded',
      'mh.error.kind': 'overloaded',
    });
    expect(record?.events[0]).toMatchObject({
      name: 'exception',
      attributes: { 'exception.type': 'ProviderError', 'exception.message': 'overloaded' },
    });
  });

  it('takes an explicit kind over the derived one', () => {
    const tracer = new InMemoryTracer();
    const span = tracer.startSpan('s');
    recordFailure(span, new HarnessError('grep: timeout'), 'timeout');
    span.end();
    expect(tracer.records()[0]?.attributes['error.type']).toBe('timeout');
  });
});
