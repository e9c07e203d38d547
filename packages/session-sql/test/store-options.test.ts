import { join } from 'node:path';
import { ConfigError } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStoreOptions } from '../src/index.js';
import { openPostgresStore, type PostgresStoreOptions } from '../src/postgres/index.js';
import { tempDir } from './turns.js';

describe('openSqliteStore option checks', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    folder = await tempDir();
  });
  afterEach(async () => {
    await folder.remove();
  });

  it.each([
    ['now', { now: 5 }],
    ['newSessionId', { newSessionId: 'ses_1' }],
    ['onQuery', { onQuery: true }],
    ['busyTimeoutMs', { busyTimeoutMs: 2 ** 31 }],
    ['lingerMs', { lingerMs: -1 }],
    ['lingerMs', { lingerMs: Number.NaN }],
    ['lingerMs', { lingerMs: 101 }],
    ['lingerMs', { lingerMs: '1' }],
  ])('rejects a bad %s with ConfigError naming it', async (field, options) => {
    const path = join(folder.dir, 'store.db');
    expect(await fieldOf(() => openSqliteStore(path, options as SqliteStoreOptions))).toBe(field);
  });

  it('rejects a path with a NUL byte with ConfigError naming path', async () => {
    const error = await openSqliteStore(join(folder.dir, 'a\0b.db')).catch((caught) => caught);
    expect(ConfigError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ field: 'path' });
    expect((error as Error).message).toMatch(/NUL/);
  });
});

describe('openPostgresStore duration checks', () => {
  const url = 'postgres://nobody@127.0.0.1:1/none';
  it.each([
    'statementTimeoutMs',
    'lockTimeoutMs',
    'connectTimeoutMs',
    'idleInTransactionTimeoutMs',
  ] as const)('rejects %s: 2^31 before connecting, naming it', async (field) => {
    const options: PostgresStoreOptions = { connectionString: url, [field]: 2 ** 31 };
    expect(await fieldOf(() => openPostgresStore(options))).toBe(field);
  });
});
