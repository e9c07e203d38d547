import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStoreOptions } from './open-store.js';

const url = 'postgres://mh@127.0.0.1:1/never-contacted';

function optionField(options: PostgresStoreOptions): Promise<string | undefined> {
  return fieldOf(() => openPostgresStore(options));
}

describe('openPostgresStore options', () => {
  it('rejects bad options before connecting, naming the field', async () => {
    expect(await optionField(undefined as unknown as PostgresStoreOptions)).toBe('options');
    expect(await optionField({ connectionString: 'mh.db' })).toBe('connectionString');
    expect(await optionField({ connectionString: url, schema: 'a-b' })).toBe('schema');
    expect(await optionField({ connectionString: url, schema: 'x'.repeat(64) })).toBe('schema');
    expect(await optionField({ connectionString: url, poolSize: 0 })).toBe('poolSize');
    expect(await optionField({ connectionString: url, poolSize: 2.5 })).toBe('poolSize');
    expect(await optionField({ connectionString: url, statementTimeoutMs: 0 })).toBe(
      'statementTimeoutMs',
    );
    expect(await optionField({ connectionString: url, lockTimeoutMs: Number.NaN })).toBe(
      'lockTimeoutMs',
    );
    expect(await optionField({ connectionString: url, connectTimeoutMs: -1 })).toBe(
      'connectTimeoutMs',
    );
    expect(
      await optionField({
        connectionString: url,
        idleInTransactionTimeoutMs: '5' as unknown as number,
      }),
    ).toBe('idleInTransactionTimeoutMs');
    expect(await optionField({ connectionString: url, now: 5 as unknown as () => number })).toBe(
      'now',
    );
  });

  it('rejects a misspelt option (it would leave schema or a timeout at its default)', async () => {
    const options = { connectionString: url, schma: 'app' } as unknown as PostgresStoreOptions;
    expect(await optionField(options)).toBe('schma');
  });
});
