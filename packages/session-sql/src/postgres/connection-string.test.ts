import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { isPostgresUrl, redactConnectionString } from './connection-string.js';

describe('redactConnectionString', () => {
  it('drops the password and keeps user, host, port, database and parameters', () => {
    expect(
      redactConnectionString('postgres://app:s3cret@db.internal:6543/agents?sslmode=require'),
    ).toBe('postgres://app@db.internal:6543/agents?sslmode=require');
    expect(redactConnectionString('postgresql://localhost/agents')).toBe(
      'postgresql://localhost/agents',
    );
  });

  it('rejects what is not a PostgreSQL URL with a ConfigError on connectionString', () => {
    for (const bad of ['mh.db', 'mysql://x/y', '', 42, 'postgres://exa mple:x/']) {
      const error = (() => {
        try {
          redactConnectionString(bad as string);
        } catch (caught) {
          return caught;
        }
      })();
      expect(ConfigError.isInstance(error), String(bad)).toBe(true);
      expect((error as ConfigError).field).toBe('connectionString');
    }
  });
});

describe('isPostgresUrl', () => {
  it('accepts both schemes and nothing else', () => {
    expect(isPostgresUrl('postgres://h/d')).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/d')).toBe(true);
    expect(isPostgresUrl('./postgres.db')).toBe(false);
  });
});
