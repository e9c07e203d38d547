import { join } from 'node:path';
import { ConfigError, type SessionStore } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { assistantWithCalls, promptTurn, tempDir } from './turns.js';

// A branch given as null: a commit takes it as no branch (the current one), as it did before the
// one-statement lookup (a review of 82f3b3a found it looked up a branch named "null" and said
// the current branch, which exists, was unknown). The journal's branch is required: null there
// is refused, naming the field.
let folder: Awaited<ReturnType<typeof tempDir>>;
let store: SessionStore;
beforeAll(async () => {
  folder = await tempDir();
  store = await openSqliteStore(join(folder.dir, 'target.db'));
});
afterAll(async () => {
  await store.close();
  await folder.remove();
});

describe('a branch given as null', () => {
  it('commits on the current branch', async () => {
    await store.createSession({ id: 's' });
    await store.fork('s', 'side');
    const checkpoint = await store.commit('s', promptTurn('0'), {
      expectedHead: null,
      branch: null as unknown as string,
    });
    expect((await store.load('s', 'side')).head).toBe(checkpoint.id);
    expect((await store.load('s', 'main')).head).toBeNull();
  });

  it('is refused by the journal, which needs a branch name', async () => {
    await store.createSession({ id: 'j' });
    const none = null as unknown as string;
    for (const call of [
      () => store.journalTurn('j', none, null, assistantWithCalls('1')),
      () => store.journalStart('j', none, 'call-1-0'),
      () => store.pendingTurn('j', none),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ field: 'branch' });
    }
  });
});
