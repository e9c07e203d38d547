import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoreTarget } from './session-store-contract.js';
import { assistantWithCalls, promptTurn, resultFor, toolTurn } from './turns.js';

/**
 * `commit(…, { pendingTurn: 'refuse' })`: a commit that fails, changing nothing, when a turn is
 * journaled on its head, so an Agent can commit a prompt without reading the journal first and
 * still never clear a turn whose tools ran (or that waits on a person).
 */
export function refuseContract(
  current: () => { readonly store: SessionStore; readonly target: StoreTarget },
): void {
  describe("commit with pendingTurn: 'refuse'", () => {
    let store: SessionStore;
    let base: string;
    beforeEach(async () => {
      store = current().store;
      await store.createSession({ id: 's' });
      base = (await store.commit('s', promptTurn('0'), { expectedHead: null })).id;
    });

    it('says it honours the option', () => {
      expect(store.refusesPendingTurn).toBe(true);
    });

    it('fails with a conflict on the unmoved head when a turn is journaled there, changing nothing', async () => {
      await store.journalTurn('s', 'main', base, assistantWithCalls('1', 2));
      await store.journalStart('s', 'main', 'call-1-0');
      await store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 0));
      const before = await store.pendingTurn('s', 'main');
      const error = await store
        .commit('s', promptTurn('next'), { expectedHead: base, pendingTurn: 'refuse' })
        .catch((caught: unknown) => caught);
      expect(SessionConflictError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ sessionId: 's', expectedHead: base, actualHead: base });
      expect((error as Error).message).toContain('assistant-1');
      expect(await store.pendingTurn('s', 'main')).toEqual(before);
      const state = await store.load('s');
      expect(state.head).toBe(base);
      expect(state.messages.map((message) => message.id)).toEqual(['user-0']);
    });

    it('commits as usual when nothing is journaled, and a finished turn lets the next one in', async () => {
      const next = await store.commit('s', promptTurn('1'), {
        expectedHead: base,
        pendingTurn: 'refuse',
      });
      await store.journalTurn('s', 'main', next.id, assistantWithCalls('2', 1));
      // The writer that journaled the turn finishes it with the default, which clears it.
      const done = await store.commit('s', toolTurn('2', 1), { expectedHead: next.id });
      expect(await store.pendingTurn('s', 'main')).toBeUndefined();
      const after = await store.commit('s', promptTurn('3'), {
        expectedHead: done.id,
        pendingTurn: 'refuse',
      });
      expect(after.parentId).toBe(done.id);
    });

    it("still clears the journal with 'clear', the default", async () => {
      await store.journalTurn('s', 'main', base, assistantWithCalls('1', 1));
      await store.commit('s', toolTurn('1', 1), { expectedHead: base, pendingTurn: 'clear' });
      expect(await store.pendingTurn('s', 'main')).toBeUndefined();
    });

    it('refuses anything but clear or refuse, naming pendingTurn', async () => {
      const wrong = { expectedHead: base, pendingTurn: 'keep' } as unknown as Parameters<
        SessionStore['commit']
      >[2];
      const error = await store.commit('s', promptTurn('x'), wrong).catch((caught) => caught);
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ field: 'pendingTurn' });
      expect((await store.load('s')).head).toBe(base);
    });

    it('never lands a prompt over a turn journaled by a racing writer (two stores)', async () => {
      const other = await current().target.open();
      try {
        for (let round = 0; round < 20; round++) {
          const head = (await store.load('s')).head;
          const [journaled, committed] = await Promise.allSettled([
            other.journalTurn('s', 'main', head, assistantWithCalls(`r${round}`, 1)),
            store.commit('s', promptTurn(`p${round}`), {
              expectedHead: head,
              pendingTurn: 'refuse',
            }),
          ]);
          const pending = await store.pendingTurn('s', 'main');
          const state = await store.load('s');
          // Exactly one of the two lands: the other finds it there.
          if (committed.status === 'fulfilled') {
            expect(journaled.status).toBe('rejected');
            expect(state.head).toBe(committed.value.id);
            expect(pending).toBeUndefined();
          } else {
            expect(SessionConflictError.isInstance(committed.reason)).toBe(true);
            expect(journaled.status).toBe('fulfilled');
            expect(state.head).toBe(head);
            expect(pending?.assistant.id).toBe(`assistant-r${round}`);
          }
          // A journaled turn is finished before the next round.
          if (journaled.status === 'fulfilled') {
            await other.commit('s', toolTurn(`r${round}`, 1), { expectedHead: head });
          }
        }
      } finally {
        await other.close();
      }
    });
  });
}
