import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStoreOptions } from './open-postgres-store.js';

const url = 'postgres://mh@127.0.0.1:1/never-contacted';

async function fieldOf(options: PostgresStoreOptions): Promise<string> {
  const error = await openPostgresStore(options).catch((caught: unknown) => caught);
  expect(ConfigError.isInstance(error), String(error)).toBe(true);
  return (error as ConfigError).field;
}

describe('openPostgresStore options', () => {
  it('rejects bad options before connecting, naming the field', async () => {
    expect(await fieldOf(undefined as unknown as PostgresStoreOptions)).toBe('options');
    expect(await fieldOf({ connectionString: 'mh.db' })).toBe('connectionString');
    expect(await fieldOf({ connectionString: url, schema: 'a-b' })).toBe('schema');
    expect(await fieldOf({ connectionString: url, schema: 'x'.repeat(64) })).toBe('schema');
    expect(await fieldOf({ connectionString: url, poolSize: 0 })).toBe('poolSize');
    expect(await fieldOf({ connectionString: url, poolSize: 2.5 })).toBe('poolSize');
    expect(await fieldOf({ connectionString: url, statementTimeoutMs: 0 })).toBe(
      'statementTimeoutMs',
    );
    expect(await fieldOf({ connectionString: url, lockTimeoutMs: Number.NaN })).toBe(
      'lockTimeoutMs',
    );
    expect(await fieldOf({ connectionString: url, connectTimeoutMs: -1 })).toBe('connectTimeoutMs');
    expect(
      await fieldOf({
        connectionString: url,
        idleInTransactionTimeoutMs: '5' as unknown as number,
      }),
    ).toBe('idleInTransactionTimeoutMs');
    expect(await fieldOf({ connectionString: url, now: 5 as unknown as () => number })).toBe('now');
  });

  it('rejects a misspelt option (it would leave schema or a timeout at its default)', async () => {
    const options = { connectionString: url, schma: 'app' } as unknown as PostgresStoreOptions;
    expect(await fieldOf(options)).toBe('schma');
  });
});
