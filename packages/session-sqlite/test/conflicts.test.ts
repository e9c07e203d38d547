import { join } from 'node:path';
import { SessionConflictError } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteSessionStore } from '../src/index.js';
import { promptTurn, tempDir } from './turns.js';

describe('SqliteSessionStore optimistic concurrency', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let first: SqliteSessionStore;
  let second: SqliteSessionStore;
  beforeEach(async () => {
    folder = await tempDir();
    const path = join(folder.dir, 'store.db');
    first = await openSqliteStore(path);
    second = await openSqliteStore(path);
    await first.createSession({ id: 's' });
  });
  afterEach(async () => {
    await first.close();
    await second.close();
    await folder.remove();
  });

  it('lets exactly one of two stores win each race; the loser gets SessionConflictError', async () => {
    const rounds = 25;
    for (let round = 0; round < rounds; round++) {
      const [a, b] = await Promise.all([first.load('s'), second.load('s')]);
      expect(a.head).toBe(b.head);
      const outcomes = await Promise.allSettled([
        first.commit('s', promptTurn(`a${round}`), { expectedHead: a.head }),
        second.commit('s', promptTurn(`b${round}`), { expectedHead: b.head }),
      ]);
      const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const losers = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason] : [],
      );
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(SessionConflictError.isInstance(losers[0])).toBe(true);
      const winner = winners[0] as PromiseFulfilledResult<{ id: string }>;
      expect(losers[0]).toMatchObject({ expectedHead: a.head, actualHead: winner.value.id });
    }
    const state = await second.load('s');
    expect(state.checkpoints).toHaveLength(rounds);
    expect((await first.getSession('s'))?.turns).toBe(rounds);
  });
});
