import {
  ConfigError,
  DEFAULT_BRANCH,
  SessionConflictError,
  type SessionStore,
  toolResult,
} from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { concurrencyContract } from './session-store-contract-concurrency.js';
import { questionsContract } from './session-store-contract-questions.js';
import { refuseContract } from './session-store-contract-refuse.js';
import { commitTurnsContract } from './session-store-contract-turns.js';
import { assistantWithCalls, promptTurn, resultFor, toolTurn } from './turns.js';

/** One empty database; `open` may be called more than once (stores sharing it). */
export interface StoreTarget {
  /** Opens a store on the database; the suite closes it. */
  open(): Promise<SessionStore>;
}

/** Makes a fresh, empty database for one test. */
export type TargetFactory = () => Promise<StoreTarget>;

/** Asserts that `promise` rejects with a `ConfigError` whose message names `id`. */
export async function expectConfigError(
  promise: Promise<unknown>,
  id: string,
): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ConfigError.isInstance(error), `expected a ConfigError, got ${String(error)}`).toBe(true);
  expect((error as ConfigError).message).toContain(id);
  return error as ConfigError;
}

/** Asserts that `promise` rejects with a `SessionConflictError` whose message names `id`. */
async function expectConflictNaming(promise: Promise<unknown>, id: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(SessionConflictError.isInstance(error), `expected a conflict, got ${String(error)}`).toBe(
    true,
  );
  expect((error as Error).message).toContain(id);
}

/**
 * The behaviour every `SessionStore` must show, written once for all backends: one suite, run
 * against the SQLite store and the PostgreSQL store, so both honour the same port.
 */
export function sessionStoreContract(backend: string, newTarget: TargetFactory): void {
  describe(`SessionStore contract (${backend})`, () => {
    let target: StoreTarget;
    let store: SessionStore;
    beforeEach(async () => {
      target = await newTarget();
      store = await target.open();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('createSession', () => {
      it('creates a session on an empty main branch', async () => {
        const info = await store.createSession({ id: 's1', title: 'first' });
        expect(info).toMatchObject({ id: 's1', title: 'first', branch: DEFAULT_BRANCH, turns: 0 });
        expect(info.updatedAt).toBe(info.createdAt);
        const state = await store.load('s1');
        expect(state).toMatchObject({ sessionId: 's1', branch: 'main', head: null });
        expect(state.messages).toEqual([]);
        expect(state.checkpoints).toEqual([]);
      });

      it('mints distinct ids when none is given', async () => {
        const a = await store.createSession();
        const b = await store.createSession();
        expect(a.id).not.toBe(b.id);
        expect(a.title).toBeUndefined();
      });

      it('rejects a misspelt option with ConfigError naming it', async () => {
        const error = await store
          .createSession({ titel: 'x' } as never)
          .catch((caught: unknown) => caught);
        expect(ConfigError.isInstance(error) ? error.field : error).toBe('titel');
      });

      it('rejects an id that is already in use', async () => {
        await store.createSession({ id: 'dup' });
        await expectConfigError(store.createSession({ id: 'dup' }), 'dup');
      });
    });

    describe('getSession and listSessions', () => {
      it('returns undefined for an unknown session', async () => {
        expect(await store.getSession('nope')).toBeUndefined();
      });

      it('counts the turns of the current branch', async () => {
        await store.createSession({ id: 's' });
        const first = await store.commit('s', promptTurn('1'), { expectedHead: null });
        await store.commit('s', toolTurn('2'), { expectedHead: first.id });
        expect(await store.getSession('s')).toMatchObject({ id: 's', turns: 2, branch: 'main' });
      });

      it('lists the most recently updated session first', async () => {
        await store.createSession({ id: 'old' });
        await store.createSession({ id: 'new' });
        await new Promise((resolve) => setTimeout(resolve, 5));
        await store.commit('old', promptTurn('x'), { expectedHead: null });
        const ids = (await store.listSessions()).map((session) => session.id);
        expect(ids).toEqual(['old', 'new']);
      });
    });

    describe('commit and load', () => {
      it('appends a checkpoint and loads the history exactly as committed', async () => {
        await store.createSession({ id: 's' });
        const turn = toolTurn('1');
        const checkpoint = await store.commit('s', turn, { expectedHead: null });
        expect(checkpoint).toMatchObject({ sessionId: 's', parentId: null, turn: 1 });
        expect(checkpoint.id).toMatch(/^[0-9a-f]{64}$/);
        expect(checkpoint.messageIds).toEqual(['assistant-1', 'results-1']);
        expect(checkpoint.meta).toEqual(turn.meta);
        const state = await store.load('s');
        expect(state.head).toBe(checkpoint.id);
        expect(state.messages).toEqual(turn.messages);
        expect(state.checkpoints).toEqual([checkpoint]);
      });

      it('chains checkpoints through their parents, root first', async () => {
        await store.createSession({ id: 's' });
        let head: string | null = null;
        for (const tag of ['1', '2', '3']) {
          head = (await store.commit('s', toolTurn(tag), { expectedHead: head })).id;
        }
        const state = await store.load('s');
        expect(state.checkpoints.map((c) => c.turn)).toEqual([1, 2, 3]);
        expect(state.checkpoints[1]?.parentId).toBe(state.checkpoints[0]?.id);
        expect(state.messages.map((m) => m.id)).toEqual([
          'assistant-1',
          'results-1',
          'assistant-2',
          'results-2',
          'assistant-3',
          'results-3',
        ]);
        expect(await store.listCheckpoints('s')).toEqual(state.checkpoints);
      });

      it('returns the landed checkpoint when a commit is retried on the same head', async () => {
        await store.createSession({ id: 's' });
        const first = await store.commit('s', toolTurn('1'), { expectedHead: null });
        const retried = await store.commit('s', toolTurn('1'), { expectedHead: null });
        expect(retried).toEqual(first);
        expect((await store.load('s')).checkpoints).toEqual([first]);
      });

      it('derives the id from the content: the same turn on the same parent, the same id', async () => {
        await store.createSession({ id: 's' });
        const first = await store.commit('s', promptTurn('1'), { expectedHead: null });
        await store.rewind('s', null, 'again');
        const second = await store.commit('s', promptTurn('1'), { expectedHead: null });
        expect(second.id).toBe(first.id);
        const other = await store.commit('s', promptTurn('2'), { expectedHead: second.id });
        expect(other.id).not.toBe(first.id);
      });

      it('throws SessionConflictError when the head moved, and writes nothing', async () => {
        await store.createSession({ id: 's' });
        const first = await store.commit('s', promptTurn('1'), { expectedHead: null });
        const error = await store
          .commit('s', promptTurn('2'), { expectedHead: null })
          .catch((e) => e);
        expect(SessionConflictError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ sessionId: 's', expectedHead: null, actualHead: first.id });
        const state = await store.load('s');
        expect(state.messages.map((m) => m.id)).toEqual(['user-1']);
      });

      it('commits to a named branch without touching the current one', async () => {
        await store.createSession({ id: 's' });
        const root = await store.commit('s', promptTurn('1'), { expectedHead: null });
        await store.fork('s', 'side');
        await store.switchBranch('s', 'main');
        await store.commit('s', promptTurn('2'), { expectedHead: root.id, branch: 'side' });
        expect((await store.load('s')).head).toBe(root.id);
        expect((await store.load('s', 'side')).checkpoints).toHaveLength(2);
      });

      it('validates the messages, naming the bad field', async () => {
        await store.createSession({ id: 's' });
        const bad = { messages: [{ id: 'm', role: 'system', content: [] }], meta: {} };
        const error = await expectConfigError(
          store.commit('s', bad as never, { expectedHead: null }),
          'role',
        );
        expect(error.field).toBe('messages[0].role');
        await expectConfigError(
          store.commit('s', { messages: [], meta: {} }, { expectedHead: null }),
          'messages',
        );
        expect((await store.load('s')).checkpoints).toEqual([]);
      });

      it('names an unknown session or branch', async () => {
        await expectConfigError(
          store.commit('ghost', promptTurn('1'), { expectedHead: null }),
          'ghost',
        );
        await store.createSession({ id: 's' });
        await expectConfigError(
          store.commit('s', promptTurn('1'), { expectedHead: null, branch: 'nowhere' }),
          'nowhere',
        );
        await expectConfigError(store.load('ghost'), 'ghost');
        await expectConfigError(store.load('s', 'nowhere'), 'nowhere');
        await expectConfigError(store.listCheckpoints('s', 'nowhere'), 'nowhere');
      });
    });

    describe('branches', () => {
      it('lists branches with their heads and turns', async () => {
        await store.createSession({ id: 's' });
        const one = await store.commit('s', promptTurn('1'), { expectedHead: null });
        await store.fork('s', 'copy');
        const two = await store.commit('s', promptTurn('2'), { expectedHead: one.id });
        const branches = await store.listBranches('s');
        expect(branches.map(({ name, head, turns }) => ({ name, head, turns }))).toEqual([
          { name: 'copy', head: two.id, turns: 2 },
          { name: 'main', head: one.id, turns: 1 },
        ]);
        expect(branches[0]?.updatedAt).toEqual(expect.any(Number));
      });

      it('rewinds to an older checkpoint on a new current branch, leaving the old one', async () => {
        await store.createSession({ id: 's' });
        const one = await store.commit('s', toolTurn('1'), { expectedHead: null });
        await store.commit('s', toolTurn('2'), { expectedHead: one.id });
        const before = JSON.stringify(await store.load('s', 'main'));
        const state = await store.rewind('s', one.id, 'retry');
        expect(state).toMatchObject({ branch: 'retry', head: one.id });
        expect(state.messages.map((m) => m.id)).toEqual(['assistant-1', 'results-1']);
        expect((await store.getSession('s'))?.branch).toBe('retry');
        await store.commit('s', promptTurn('3'), { expectedHead: one.id });
        expect(JSON.stringify(await store.load('s', 'main'))).toBe(before);
      });

      it('rewinds to the empty history with a null checkpoint', async () => {
        await store.createSession({ id: 's' });
        await store.commit('s', promptTurn('1'), { expectedHead: null });
        const state = await store.rewind('s', null, 'fresh');
        expect(state).toMatchObject({ head: null, messages: [], checkpoints: [] });
      });

      it('refuses an existing branch name, an unknown checkpoint and another session’s', async () => {
        await store.createSession({ id: 's' });
        await store.createSession({ id: 't' });
        const mine = await store.commit('s', promptTurn('1'), { expectedHead: null });
        const theirs = await store.commit('t', promptTurn('1'), { expectedHead: null });
        await expectConfigError(store.rewind('s', mine.id, 'main'), 'main');
        await expectConfigError(store.rewind('s', 'f'.repeat(64), 'x'), 'f'.repeat(64));
        await expectConfigError(store.rewind('s', 'not-an-id', 'x'), 'not-an-id');
        await expectConfigError(store.rewind('s', theirs.id, 'x'), theirs.id);
        await expectConfigError(store.rewind('ghost', null, 'x'), 'ghost');
      });

      it('forks the current branch, or a named one', async () => {
        await store.createSession({ id: 's' });
        const one = await store.commit('s', promptTurn('1'), { expectedHead: null });
        const forked = await store.fork('s', 'a');
        expect(forked).toMatchObject({ branch: 'a', head: one.id });
        await store.commit('s', promptTurn('2'), { expectedHead: one.id });
        const fromMain = await store.fork('s', 'b', 'main');
        expect(fromMain.head).toBe(one.id);
        await expectConfigError(store.fork('s', 'a'), 'a');
        await expectConfigError(store.fork('s', 'c', 'nowhere'), 'nowhere');
      });

      it('switches to an existing branch and refuses an unknown one', async () => {
        await store.createSession({ id: 's' });
        await store.fork('s', 'other');
        const state = await store.switchBranch('s', 'main');
        expect(state.branch).toBe('main');
        expect((await store.getSession('s'))?.branch).toBe('main');
        await expectConfigError(store.switchBranch('s', 'nowhere'), 'nowhere');
      });
    });

    describe('pending-turn journal', () => {
      it('has no pending turn until one is journaled', async () => {
        await store.createSession({ id: 's' });
        expect(await store.pendingTurn('s', 'main')).toBeUndefined();
      });

      it('records the turn, then each start and end, in call order', async () => {
        await store.createSession({ id: 's' });
        const base = await store.commit('s', promptTurn('0'), { expectedHead: null });
        const assistant = assistantWithCalls('1', 3);
        await store.journalTurn('s', 'main', base.id, assistant);
        await store.journalStart('s', 'main', 'call-1-0');
        await store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 0));
        await store.journalStart('s', 'main', 'call-1-1');
        const pending = await store.pendingTurn('s', 'main');
        expect(pending?.baseHead).toBe(base.id);
        expect(pending?.assistant).toEqual(assistant);
        expect(pending?.calls.map((c) => [c.call.id, c.started, c.result])).toEqual([
          ['call-1-0', true, resultFor('1', 0)],
          ['call-1-1', true, undefined],
          ['call-1-2', false, undefined],
        ]);
      });

      it('refuses a competing pending turn on the same head and keeps the first', async () => {
        await store.createSession({ id: 's' });
        await store.journalTurn('s', 'main', null, assistantWithCalls('a'));
        await store.journalStart('s', 'main', 'call-a-0');
        const error = await store
          .journalTurn('s', 'main', null, assistantWithCalls('b', 1))
          .catch((caught: unknown) => caught);
        expect(SessionConflictError.isInstance(error), String(error)).toBe(true);
        expect(error).toMatchObject({ sessionId: 's', expectedHead: null, actualHead: null });
        expect((error as Error).message).toContain('assistant-a');
        const pending = await store.pendingTurn('s', 'main');
        expect(pending?.assistant.id).toBe('assistant-a');
        expect(pending?.calls.map((c) => [c.call.id, c.started])).toEqual([
          ['call-a-0', true],
          ['call-a-1', false],
        ]);
      });

      it('keeps the recorded calls when the same assistant is journaled again', async () => {
        await store.createSession({ id: 's' });
        const base = await store.commit('s', promptTurn('0'), { expectedHead: null });
        await store.journalTurn('s', 'main', base.id, assistantWithCalls('1'));
        await store.journalStart('s', 'main', 'call-1-0');
        await store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 0));
        await store.journalStart('s', 'main', 'call-1-1');
        const before = await store.pendingTurn('s', 'main');
        await store.journalTurn('s', 'main', base.id, assistantWithCalls('1'));
        expect(await store.pendingTurn('s', 'main')).toEqual(before);
      });

      it('refuses to mark a call of a turn another writer cleared (SessionConflictError)', async () => {
        await store.createSession({ id: 's' });
        await store.journalTurn('s', 'main', null, assistantWithCalls('mine'));
        // Another writer commits its own turn on the same head: the commit clears the journal.
        const theirs = await store.commit('s', promptTurn('theirs'), { expectedHead: null });
        for (const write of [
          store.journalStart('s', 'main', 'call-mine-0'),
          store.journalEnd('s', 'main', 'call-mine-0', resultFor('mine', 0)),
        ]) {
          const error = await write.catch((caught: unknown) => caught);
          expect(SessionConflictError.isInstance(error), String(error)).toBe(true);
          expect(error).toMatchObject({ sessionId: 's', actualHead: theirs.id });
          expect((error as Error).message).toContain('call-mine-0');
        }
        expect(await store.pendingTurn('s', 'main')).toBeUndefined();
      });

      it('keeps pending turns per branch and clears one on that branch’s commit', async () => {
        await store.createSession({ id: 's' });
        await store.fork('s', 'side');
        await store.journalTurn('s', 'main', null, assistantWithCalls('m'));
        await store.journalTurn('s', 'side', null, assistantWithCalls('s'));
        await store.commit('s', toolTurn('m'), { expectedHead: null, branch: 'main' });
        expect(await store.pendingTurn('s', 'main')).toBeUndefined();
        expect((await store.pendingTurn('s', 'side'))?.assistant.id).toBe('assistant-s');
      });

      it('refuses a call not in the pending turn with SessionConflictError, naming it', async () => {
        await store.createSession({ id: 's' });
        // Thunks, so each write starts only when it is awaited: two promises made at once leave the
        // second one's rejection unhandled while the first is awaited (an asynchronous engine).
        const writes = [
          () => store.journalStart('s', 'main', 'call-x'),
          () => store.journalEnd('s', 'main', 'call-x', toolResult('call-x', 'r')),
        ];
        for (const write of writes) await expectConflictNaming(write(), 'call-x');
        await store.journalTurn('s', 'main', null, assistantWithCalls('1'));
        for (const write of writes) await expectConflictNaming(write(), 'call-x');
        const error = await expectConfigError(
          store.journalStart('s', 'main', 42 as never),
          'callId',
        );
        expect(error.field).toBe('callId');
      });

      it('names an unknown base, branch or session', async () => {
        await store.createSession({ id: 's' });
        await expectConfigError(
          store.journalTurn('s', 'main', 'a'.repeat(64), assistantWithCalls('2')),
          'a'.repeat(64),
        );
        await expectConfigError(store.pendingTurn('s', 'nowhere'), 'nowhere');
        await expectConfigError(store.pendingTurn('ghost', 'main'), 'ghost');
      });

      it('refuses a stale writer’s journal, keeping the live writer’s pending turn (issue 15 #3)', async () => {
        await store.createSession({ id: 's' });
        const h1 = await store.commit('s', promptTurn('A'), { expectedHead: null });
        const h2 = await store.commit('s', promptTurn('B'), { expectedHead: h1.id });
        await store.journalTurn('s', 'main', h2.id, assistantWithCalls('B'));
        const error = await store
          .journalTurn('s', 'main', h1.id, assistantWithCalls('A'))
          .catch((caught: unknown) => caught);
        expect(SessionConflictError.isInstance(error), String(error)).toBe(true);
        expect(error).toMatchObject({ sessionId: 's', expectedHead: h1.id, actualHead: h2.id });
        await store.journalStart('s', 'main', 'call-B-0');
        const pending = await store.pendingTurn('s', 'main');
        expect(pending?.baseHead).toBe(h2.id);
        expect(pending?.assistant.id).toBe('assistant-B');
        expect(pending?.calls.map((c) => [c.call.id, c.started])).toEqual([
          ['call-B-0', true],
          ['call-B-1', false],
        ]);
      });

      it('rejects a result that answers another call', async () => {
        await store.createSession({ id: 's' });
        await store.journalTurn('s', 'main', null, assistantWithCalls('1'));
        const error = await expectConfigError(
          store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 1)),
          'call-1-0',
        );
        expect(error.field).toBe('result.toolUseId');
      });
    });

    describe('deleteSession', () => {
      it('removes the session and leaves the others intact', async () => {
        await store.createSession({ id: 'gone' });
        await store.createSession({ id: 'kept' });
        for (const id of ['gone', 'kept']) {
          const one = await store.commit(id, toolTurn('shared'), { expectedHead: null });
          await store.commit(id, promptTurn(id), { expectedHead: one.id });
        }
        const { head } = await store.load('gone');
        await store.journalTurn('gone', 'main', head, assistantWithCalls('j'));
        await store.fork('gone', 'side');
        const kept = JSON.stringify(await store.load('kept'));
        await store.deleteSession('gone');
        expect(await store.getSession('gone')).toBeUndefined();
        await expectConfigError(store.load('gone'), 'gone');
        expect(JSON.stringify(await store.load('kept'))).toBe(kept);
        expect((await store.listSessions()).map((s) => s.id)).toEqual(['kept']);
      });

      it('names an unknown session', async () => {
        await expectConfigError(store.deleteSession('ghost'), 'ghost');
      });
    });

    it('fails every call after close', async () => {
      await store.close();
      await expect(store.listSessions()).rejects.toThrow();
      store = await target.open();
    });

    concurrencyContract(() => ({ store, target }));
    questionsContract(() => ({ store, target }));
    refuseContract(() => ({ store, target }));
    commitTurnsContract(() => ({ store, target }));
  });
}
