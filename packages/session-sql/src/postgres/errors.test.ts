import { describe, expect, it } from 'vitest';
import { classifyPostgresError, isConnectionConfigError } from './errors.js';

const withCode = (code: string, message = 'x'): Error =>
  Object.assign(new Error(message), { code });

describe('classifyPostgresError', () => {
  it('runs again what a concurrent transaction caused', () => {
    for (const code of ['40001', '40P01', '23505', '23503']) {
      expect(classifyPostgresError(withCode(code))).toBe('rerun');
    }
  });

  it('tells a lock timeout from a statement timeout', () => {
    expect(classifyPostgresError(withCode('55P03'))).toBe('busy');
    expect(classifyPostgresError(withCode('57014'))).toBe('timeout');
  });

  it('sees a server going away in SQLSTATEs, socket errors and node-postgres messages', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '25P03', '08006', '08001']) {
      expect(classifyPostgresError(withCode(code))).toBe('connection');
    }
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']) {
      expect(classifyPostgresError(withCode(code))).toBe('connection');
    }
    expect(classifyPostgresError(new Error('Connection terminated unexpectedly'))).toBe(
      'connection',
    );
    expect(classifyPostgresError(new Error('timeout exceeded when trying to connect'))).toBe(
      'connection',
    );
    const both = Object.assign(new AggregateError([withCode('ECONNREFUSED')]), {});
    expect(classifyPostgresError(both)).toBe('connection');
  });

  it('passes everything else on', () => {
    expect(classifyPostgresError(withCode('42P01'))).toBe('other');
    expect(classifyPostgresError(withCode('22001', 'Connection terminated'))).toBe('other');
    expect(classifyPostgresError(new TypeError('bug'))).toBe('other');
    expect(classifyPostgresError('text')).toBe('other');
    expect(classifyPostgresError(null)).toBe('other');
  });
});

describe('isConnectionConfigError', () => {
  it('recognises bad credentials and a missing database', () => {
    expect(isConnectionConfigError(withCode('28P01'))).toBe(true);
    expect(isConnectionConfigError(withCode('28000'))).toBe(true);
    expect(isConnectionConfigError(withCode('3D000'))).toBe(true);
    expect(isConnectionConfigError(withCode('57P03'))).toBe(false);
    expect(isConnectionConfigError(new Error('x'))).toBe(false);
  });
});
