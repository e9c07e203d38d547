import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteSessionStore } from '../src/index.js';
import { rowCounts } from './inspect-file.js';
import { promptTurn, tempDir, toolTurn } from './turns.js';

describe('SqliteSessionStore content addressing', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  let path: string;
  let store: SqliteSessionStore;
  beforeEach(async () => {
    folder = await tempDir();
    path = join(folder.dir, 'store.db');
    store = await openSqliteStore(path);
    await store.createSession({ id: 's' });
  });
  afterEach(async () => {
    await store.close();
    await folder.remove();
  });

  it('stores a message committed on two branches once', async () => {
    const root = await store.commit('s', promptTurn('0'), { expectedHead: null });
    await store.fork('s', 'other');
    await store.commit('s', toolTurn('same'), { expectedHead: root.id, branch: 'main' });
    await store.commit(
      's',
      { ...toolTurn('same'), meta: { model: 'other' } },
      {
        expectedHead: root.id,
        branch: 'other',
      },
    );
    expect(rowCounts(path)).toMatchObject({ messages: 3, checkpoints: 3 });
  });

  it('stores only what each checkpoint appends, so storage grows with new content', async () => {
    let head: string | null = null;
    for (let turn = 1; turn <= 20; turn++) {
      head = (await store.commit('s', toolTurn(String(turn)), { expectedHead: head })).id;
    }
    // 20 turns of 2 messages: a full-snapshot design would hold 2+4+…+40 = 420 references.
    expect(rowCounts(path)).toMatchObject({
      messages: 40,
      checkpoints: 20,
      checkpoint_messages: 40,
    });
  });

  it('rewinds and forks without copying and without touching the old branch', async () => {
    let head: string | null = null;
    const ids: string[] = [];
    for (let turn = 1; turn <= 5; turn++) {
      head = (await store.commit('s', toolTurn(String(turn)), { expectedHead: head })).id;
      ids.push(head);
    }
    const before = JSON.stringify(await store.load('s', 'main'));
    const counts = rowCounts(path);
    const rewound = await store.rewind('s', ids[1] ?? null, 'retry');
    await store.fork('s', 'copy', 'main');
    expect(rowCounts(path)).toEqual({ ...counts, branches: (counts.branches ?? 0) + 2 });
    await store.commit('s', toolTurn('new'), { expectedHead: rewound.head, branch: 'retry' });
    expect(rowCounts(path)).toMatchObject({
      messages: (counts.messages ?? 0) + 2,
      checkpoint_messages: (counts.checkpoint_messages ?? 0) + 2,
    });
    expect(JSON.stringify(await store.load('s', 'main'))).toBe(before);
    expect(JSON.stringify((await store.load('s', 'copy')).messages)).toBe(
      JSON.stringify(JSON.parse(before).messages),
    );
  });

  it('deletes with a session only the bodies no other session uses', async () => {
    await store.createSession({ id: 't' });
    const shared = toolTurn('shared');
    const mine = await store.commit('s', shared, { expectedHead: null });
    await store.commit('s', promptTurn('only-s'), { expectedHead: mine.id });
    await store.commit('t', shared, { expectedHead: null });
    expect(rowCounts(path)).toMatchObject({ messages: 3, checkpoints: 3 });
    await store.deleteSession('s');
    expect(rowCounts(path)).toMatchObject({ messages: 2, checkpoints: 1, checkpoint_messages: 2 });
    expect((await store.load('t')).messages).toEqual(shared.messages);
  });

  it('returns the landed checkpoint when a commit is retried after it succeeded', async () => {
    const turn = toolTurn('1');
    const first = await store.commit('s', turn, { expectedHead: null });
    const retried = await store.commit('s', turn, { expectedHead: null });
    expect(retried).toEqual(first);
    expect(rowCounts(path)).toMatchObject({ checkpoints: 1 });
  });

  it('loads a long branch with a recursive query, not one round trip per turn', async () => {
    let head: string | null = null;
    for (let turn = 1; turn <= 300; turn++) {
      head = (await store.commit('s', promptTurn(String(turn)), { expectedHead: head })).id;
    }
    const statements: string[] = [];
    const observed = await openSqliteStore(path, { onQuery: (sql) => statements.push(sql) });
    statements.length = 0;
    const state = await observed.load('s');
    await observed.close();
    expect(state.checkpoints).toHaveLength(300);
    expect(state.messages.map((m) => m.id).slice(0, 2)).toEqual(['user-1', 'user-2']);
    // begin, the session, the branch, the chain's checkpoints, its messages, commit.
    expect(statements).toHaveLength(6);
    expect(statements.filter((sql) => sql.startsWith('with recursive'))).toHaveLength(2);
  });
});
