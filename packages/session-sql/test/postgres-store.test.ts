import { ConfigError, SessionStoreUnavailableError } from '@mh/core';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  openPostgresStore,
  type PostgresSessionStore,
  SessionSchemaError,
  SessionStoreBusyError,
} from '../src/postgres/index.js';
import { postgresRowCounts, queryRows } from './postgres-inspect.js';
import { describePostgres } from './postgres-target.js';
import { createDatabase, dropDatabase } from './support/throwaway-postgres.mjs';
import { promptTurn } from './turns.js';

describePostgres('PostgresSessionStore on a server', (postgres) => {
  let url: string;
  const opened: PostgresSessionStore[] = [];
  const open = async (options: Partial<Parameters<typeof openPostgresStore>[0]> = {}) => {
    const store = await openPostgresStore({ connectionString: url, ...options });
    opened.push(store);
    return store;
  };
  beforeEach(async () => {
    url = await createDatabase(postgres().serverUrl);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await dropDatabase(url);
  });

  it('runs writes READ COMMITTED with synchronous_commit on and its timeouts', async () => {
    expect(await (await open()).settings()).toMatchObject({
      schema: 'mh',
      isolation: 'read committed',
      synchronousCommit: 'on',
      statementTimeoutMs: 10_000,
      lockTimeoutMs: 5000,
      idleInTransactionTimeoutMs: 30_000,
      poolSize: 10,
      serverVersion: expect.stringMatching(/^\d+/),
    });
    const tuned = await open({
      schema: 'agents',
      poolSize: 3,
      statementTimeoutMs: 2500,
      lockTimeoutMs: 750,
      idleInTransactionTimeoutMs: 4000,
    });
    expect(await tuned.settings()).toMatchObject({
      schema: 'agents',
      statementTimeoutMs: 2500,
      lockTimeoutMs: 750,
      idleInTransactionTimeoutMs: 4000,
      poolSize: 3,
    });
  });

  it('keeps its tables in their own schema, bodies as bytea and metadata as text', async () => {
    await open();
    const columns = await queryRows<{ table_name: string; column_name: string; data_type: string }>(
      url,
      `select table_name, column_name, data_type from information_schema.columns
       where table_schema = 'mh' and column_name in ('body', 'hash', 'meta', 'created_at')`,
    );
    const types = Object.fromEntries(
      columns.map((c) => [`${c.table_name}.${c.column_name}`, c.data_type]),
    );
    expect(types).toMatchObject({
      'messages.body': 'bytea',
      'messages.hash': 'bytea',
      'checkpoints.meta': 'text',
      'checkpoints.created_at': 'bigint',
    });
    const publicTables = await queryRows(
      url,
      "select 1 from information_schema.tables where table_schema = 'public'",
    );
    expect(publicTables).toEqual([]);
  });

  it('migrates a fresh database once when several stores open it at the same moment', async () => {
    const statements: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, () => open({ onQuery: (sql) => statements.push(sql) })),
    );
    const applied = await queryRows<{ name: string }>(url, 'select name from mh.mh_migration');
    expect(applied.map((row) => row.name)).toEqual([
      '0001_content_addressed_sessions',
      '0002_pending_call_questions',
    ]);
    expect(statements.filter((sql) => sql.startsWith('create table "mh"."sessions"'))).toHaveLength(
      1,
    );
    statements.length = 0;
    await open({ onQuery: (sql) => statements.push(sql) });
    expect(statements.some((sql) => sql.startsWith('create'))).toBe(false);
  });

  it('refuses a schema holding tables it did not create, and leaves them alone', async () => {
    await queryRows(url, 'create schema app; create table app.sessions (token text)');
    const error = await open({ schema: 'app' }).catch((e) => e);
    expect(SessionSchemaError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'schema', schema: 'app', problem: 'foreign-schema' });
    expect(error.message).toContain('sessions');
    const tables = await queryRows(
      url,
      "select 1 from information_schema.tables where table_schema = 'app'",
    );
    expect(tables).toHaveLength(1);
  });

  it('refuses a schema migrated by a newer version', async () => {
    await (await open()).close();
    await queryRows(url, "insert into mh.mh_migration values ('0099_future', 'x')");
    const error = await open().catch((e) => e);
    expect(error).toMatchObject({ field: 'schema', problem: 'newer-schema' });
    expect(error.message).toContain('0099_future');
  });

  it('names the connection string when the database or role does not exist', async () => {
    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    const error = await openPostgresStore({ connectionString: missing.toString() }).catch((e) => e);
    expect(error).toMatchObject({ field: 'connectionString' });
    expect(error.message).toContain('no_such_database');
    const stranger = new URL(url);
    stranger.username = 'nobody_here';
    stranger.password = 'secret';
    const denied = await openPostgresStore({ connectionString: stranger.toString() }).catch(
      (e) => e,
    );
    expect(denied).toMatchObject({ field: 'connectionString' });
    expect(denied.message).not.toContain('secret');
  });

  it('fails to open with a retryable "unreachable" error when nothing listens', async () => {
    const closed = new URL(url);
    closed.port = '1';
    const error = await openPostgresStore({ connectionString: closed.toString() }).catch((e) => e);
    expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ failure: 'unreachable', retryable: true });
  });

  async function holdingTheBranch<T>(work: () => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('begin; select * from mh.branches for update');
      return await work();
    } finally {
      await client.query('rollback');
      await client.end();
    }
  }

  it('gives up on a row lock held past lockTimeoutMs with SessionStoreBusyError, writing nothing', async () => {
    const store = await open({ lockTimeoutMs: 200 });
    await store.createSession({ id: 's' });
    const error = await holdingTheBranch(() =>
      store.commit('s', promptTurn('1'), { expectedHead: null }).catch((e) => e),
    );
    expect(SessionStoreBusyError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ failure: 'busy', retryable: true, timeoutMs: 200 });
    expect(await postgresRowCounts(url)).toMatchObject({ checkpoints: 0, messages: 0 });
    await store.commit('s', promptTurn('1'), { expectedHead: null });
    expect((await store.load('s')).checkpoints).toHaveLength(1);
  });

  it('cancels a statement past statementTimeoutMs as a retryable "timeout"', async () => {
    const store = await open({ lockTimeoutMs: 60_000, statementTimeoutMs: 200 });
    await store.createSession({ id: 's' });
    const error = await holdingTheBranch(() =>
      store.commit('s', promptTurn('1'), { expectedHead: null }).catch((e) => e),
    );
    expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ failure: 'timeout', retryable: true });
    expect(await postgresRowCounts(url)).toMatchObject({ checkpoints: 0 });
  });
});
