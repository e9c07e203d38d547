import { join } from 'node:path';
import { ConfigError, type SessionStore } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { promptTurn, tempDir } from './turns.js';

/** Review of 82f3b3a: `requireTarget` names the wrong branch when the branch given is not a string. */
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

describe('a commit on branch null', () => {
  it('does not report the existing current branch as unknown', async () => {
    await store.createSession({ id: 's' });
    const error = await store
      .commit('s', promptTurn('0'), { expectedHead: null, branch: null as unknown as string })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    // Before 82f3b3a, `branch ?? current` committed on `main`. Now a ConfigError that says the
    // branch "main" (which exists) is unknown.
    if (error !== undefined) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as Error).message).not.toContain('"main"');
    }
  });
});
