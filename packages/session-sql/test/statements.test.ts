// What each hot store call asks of SQLite (issue 16, target 2). A commit's cost on SQLite is its
// fsync plus about 15 µs per statement, and kysely built each statement anew (50 µs for the
// lookup a write starts with): these counts are what keeps a step near its floor. Before this
// test a commit ran 13 statements, a journaled turn 11 and a journaled call start 6.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { assistantWithCalls, promptTurn, resultFor, tempDir, toolTurn } from './turns.js';

let folder: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  folder = await tempDir();
});
afterEach(async () => {
  await folder.remove();
});

/** Opens a store that logs its statements; `take()` returns those since the last take. */
async function logged() {
  const statements: string[] = [];
  const store = await openSqliteStore(join(folder.dir, 'store.db'), {
    onQuery: (sql) => statements.push(sql),
  });
  const take = (): string[] => statements.splice(0, statements.length);
  return { store, take };
}

const verbs = (statements: readonly string[]): string[] =>
  statements.map((sql) => {
    const [verb = '', , table = ''] = sql.replaceAll('"', '').split(/\s+/);
    return verb === 'insert' || verb === 'delete' ? `${verb} ${table}` : verb;
  });

describe('statements per store call (SQLite)', () => {
  it('commits a turn in one transaction of eight statements, clearing a pending turn only when there is one', async () => {
    const { store, take } = await logged();
    await store.createSession({ id: 's' });
    take();
    const first = await store.commit('s', promptTurn('1'), { expectedHead: null });
    const plain = take();
    expect(plain).toHaveLength(8);
    expect(verbs(plain)).toEqual([
      'begin',
      'select',
      'insert checkpoints',
      'insert messages',
      'insert checkpoint_messages',
      'update',
      'update',
      'commit',
    ]);

    await store.journalTurn('s', 'main', first.id, assistantWithCalls('2', 1));
    take();
    const second = await store.commit('s', toolTurn('2', 1), { expectedHead: first.id });
    const clearing = take();
    expect(verbs(clearing).slice(-3)).toEqual([
      'delete pending_calls',
      'delete pending_turns',
      'commit',
    ]);
    expect(clearing).toHaveLength(10);
    expect(await store.pendingTurn('s', 'main')).toBeUndefined();

    // A retry of a commit that landed reads what it needs and writes nothing.
    take();
    const again = await store.commit('s', toolTurn('2', 1), { expectedHead: first.id });
    expect(again).toEqual(second);
    expect(verbs(take())).toEqual(['begin', 'select', 'select', 'commit']);
    await store.close();
  });

  it('commits several turns in one transaction: one lookup, one head move, one insert of their messages', async () => {
    const { store, take } = await logged();
    await store.createSession({ id: 's' });
    const base = await store.commit('s', promptTurn('1'), { expectedHead: null });
    await store.journalTurn('s', 'main', base.id, assistantWithCalls('2', 1));
    take();
    // The Agent's step: the tool turn (assistant and results) with the answer after it.
    const landed = await store.commitTurns?.('s', [toolTurn('2', 1), promptTurn('3')], {
      expectedHead: base.id,
    });
    expect(verbs(take())).toEqual([
      'begin',
      'select',
      'insert checkpoints',
      'insert checkpoints',
      'insert messages',
      'insert checkpoint_messages',
      'update',
      'update',
      'delete pending_calls',
      'delete pending_turns',
      'commit',
    ]);
    expect(landed?.map((checkpoint) => [checkpoint.turn, checkpoint.messageIds.length])).toEqual([
      [2, 2],
      [3, 1],
    ]);
    // What one commit each would have made: the same checkpoints, loaded back the same.
    const state = await store.load('s');
    expect(state.checkpoints.map((checkpoint) => checkpoint.id)).toEqual([
      base.id,
      ...(landed ?? []).map((checkpoint) => checkpoint.id),
    ]);
    expect(state.messages).toHaveLength(4);
    await store.close();
  });

  it('journals a turn in five statements and a call in four, and reads the journal in three', async () => {
    const { store, take } = await logged();
    await store.createSession({ id: 's' });
    const base = await store.commit('s', promptTurn('1'), { expectedHead: null });
    take();
    await store.pendingTurn('s', 'main');
    expect(verbs(take())).toEqual(['begin', 'select', 'commit']);

    await store.journalTurn('s', 'main', base.id, assistantWithCalls('2', 2));
    expect(verbs(take())).toEqual([
      'begin',
      'select',
      'insert pending_turns',
      'insert pending_calls',
      'commit',
    ]);
    await store.journalStart('s', 'main', 'call-2-0');
    expect(verbs(take())).toEqual(['begin', 'select', 'update', 'commit']);
    await store.journalEnd('s', 'main', 'call-2-0', resultFor('2', 0));
    expect(verbs(take())).toEqual(['begin', 'select', 'update', 'commit']);

    const pending = await store.pendingTurn('s', 'main');
    expect(verbs(take())).toEqual(['begin', 'select', 'select', 'commit']);
    expect(pending?.calls.map((call) => [call.call.id, call.started, call.result])).toEqual([
      ['call-2-0', true, resultFor('2', 0)],
      ['call-2-1', false, undefined],
    ]);
    await store.close();
  });

  it('runs the same SQL text for the same kind of call, whatever its values', async () => {
    const { store, take } = await logged();
    await store.createSession({ id: 'a' });
    await store.createSession({ id: 'b' });
    take();
    await store.commit('a', promptTurn('a1'), { expectedHead: null });
    const one = take();
    await store.commit('b', promptTurn('b1', 'another prompt, longer than the first'), {
      expectedHead: null,
    });
    expect(take()).toEqual(one);
    await store.close();
  });
});
