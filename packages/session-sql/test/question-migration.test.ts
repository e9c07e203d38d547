import { join } from 'node:path';
import type { SessionStore } from '@mh/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { openPostgresStore } from '../src/postgres/index.js';
import { queryRows } from './postgres-inspect.js';
import { describePostgres } from './postgres-target.js';
import { createDatabase, dropDatabase } from './support/throwaway-postgres.mjs';
import { assistantWithCalls, promptTurn, tempDir } from './turns.js';

/** Journals a pending turn with one started call, as a version before questions left it. */
async function pendingBeforeQuestions(store: SessionStore): Promise<void> {
  await store.createSession({ id: 's' });
  const base = await store.commit('s', promptTurn('0'), { expectedHead: null });
  await store.journalTurn('s', 'main', base.id, assistantWithCalls('1', 2));
  await store.journalStart('s', 'main', 'call-1-0');
}

/** Reads the old pending turn back, then holds a call on a question in it. */
async function expectReadableAndWritable(store: SessionStore): Promise<void> {
  const pending = await store.pendingTurn('s', 'main');
  expect(pending?.calls.map((entry) => [entry.started, entry.question, entry.answers])).toEqual([
    [true, undefined, undefined],
    [false, undefined, undefined],
  ]);
  await store.journalQuestion('s', 'main', 'call-1-1', { question: 'Where?', answers: [] });
  expect((await store.pendingTurn('s', 'main'))?.calls[1]?.question?.question).toBe('Where?');
}

const UNDO_QUESTIONS = [
  'alter table pending_calls drop column question',
  'alter table pending_calls drop column answers',
];

describe('a SQLite database from before questions (schema 0001 only)', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    folder = await tempDir();
  });
  afterAll(async () => {
    await folder.remove();
  });

  it('is migrated on open; its pending turn reads as calls that never asked', async () => {
    const path = join(folder.dir, 'old.db');
    const store = await openSqliteStore(path);
    await pendingBeforeQuestions(store);
    await store.close();
    const database = new Database(path);
    for (const statement of UNDO_QUESTIONS) database.exec(statement);
    database.exec("delete from kysely_migration where name = '0002_pending_call_questions'");
    database.close();
    const reopened = await openSqliteStore(path);
    try {
      await expectReadableAndWritable(reopened);
    } finally {
      await reopened.close();
    }
  });
});

describePostgres('a PostgreSQL schema from before questions (0001 only)', (postgres) => {
  let url: string;
  beforeEach(async () => {
    url = await createDatabase(postgres().serverUrl);
  });
  afterEach(async () => {
    await dropDatabase(url);
  });

  it('is migrated on open; its pending turn reads as calls that never asked', async () => {
    const store = await openPostgresStore({ connectionString: url });
    await pendingBeforeQuestions(store);
    await store.close();
    await queryRows(
      url,
      `${UNDO_QUESTIONS.map((statement) => statement.replace('pending_calls', 'mh.pending_calls')).join('; ')}; delete from mh.mh_migration where name = '0002_pending_call_questions'`,
    );
    const reopened = await openPostgresStore({ connectionString: url });
    try {
      await expectReadableAndWritable(reopened);
    } finally {
      await reopened.close();
    }
  });
});
