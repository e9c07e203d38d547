import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoreTarget } from './session-store-contract.js';
import { assistantWithCalls, promptTurn, toolTurn } from './turns.js';

/**
 * `commitTurns`: several turns, one checkpoint each, in one atomic write. The Agent commits a
 * tool turn with the answer after it this way: one fsync fewer per step.
 */
export function commitTurnsContract(
  current: () => { readonly store: SessionStore; readonly target: StoreTarget },
): void {
  describe('commitTurns', () => {
    let store: SessionStore;
    let base: string;
    const commitTurns = (...args: Parameters<NonNullable<SessionStore['commitTurns']>>) =>
      (store.commitTurns as NonNullable<SessionStore['commitTurns']>).apply(store, args);
    beforeEach(async () => {
      store = current().store;
      await store.createSession({ id: 's' });
      base = (await store.commit('s', promptTurn('0'), { expectedHead: null })).id;
    });

    it('lands the turns in order as the checkpoints one commit each would make, clearing the journal', async () => {
      await store.journalTurn('s', 'main', base, assistantWithCalls('1', 1));
      const landed = await commitTurns('s', [toolTurn('1', 1), promptTurn('2')], {
        expectedHead: base,
      });
      expect(landed.map((checkpoint) => checkpoint.parentId)).toEqual([base, landed[0]?.id]);
      expect(landed.map((checkpoint) => checkpoint.turn)).toEqual([2, 3]);
      const state = await store.load('s');
      expect(state.head).toBe(landed[1]?.id);
      expect(state.checkpoints.map((checkpoint) => checkpoint.id)).toEqual([
        base,
        ...landed.map((checkpoint) => checkpoint.id),
      ]);
      expect(await store.pendingTurn('s', 'main')).toBeUndefined();
      // The same ids as committing one by one on another session with the same content.
      await store.createSession({ id: 't' });
      const other = await store.commit('t', promptTurn('0'), { expectedHead: null });
      const one = await store.commit('t', toolTurn('1', 1), { expectedHead: other.id });
      expect(one.messageIds).toEqual(landed[0]?.messageIds);
      expect(landed[0]?.meta).toEqual(one.meta);
    });

    it('lands none when the head moved, with the conflict of the first turn', async () => {
      const moved = await store.commit('s', promptTurn('x'), { expectedHead: base });
      const error = await commitTurns('s', [toolTurn('1', 1), promptTurn('2')], {
        expectedHead: base,
      }).catch((caught: unknown) => caught);
      expect(SessionConflictError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ expectedHead: base, actualHead: moved.id });
      expect((await store.load('s')).head).toBe(moved.id);
    });

    it('returns the landed checkpoints to a retry, and refuses a pending turn with refuse', async () => {
      const turns = [toolTurn('1', 1), promptTurn('2')];
      const landed = await commitTurns('s', turns, { expectedHead: base });
      expect(await commitTurns('s', turns, { expectedHead: base })).toEqual(landed);
      const head = landed[1]?.id ?? null;
      await store.journalTurn('s', 'main', head, assistantWithCalls('3', 1));
      const refused = await commitTurns('s', [promptTurn('4'), promptTurn('5')], {
        expectedHead: head,
        pendingTurn: 'refuse',
      }).catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ expectedHead: head, actualHead: head });
      expect((await store.load('s')).head).toBe(head);
    });

    it('lands the rest of a retry whose first turns landed, as one commit per turn would', async () => {
      const turns = [toolTurn('1', 1), promptTurn('2'), promptTurn('3')];
      // The first turn landed alone (committed one by one, or by a writer that stopped there).
      const first = await store.commit('s', turns[0] as (typeof turns)[0], { expectedHead: base });
      const landed = await commitTurns('s', turns, { expectedHead: base });
      expect(landed[0]).toEqual(first);
      expect(landed.map((checkpoint) => checkpoint.parentId)).toEqual([
        base,
        first.id,
        landed[1]?.id,
      ]);
      expect(landed.map((checkpoint) => checkpoint.turn)).toEqual([2, 3, 4]);
      expect((await store.load('s')).head).toBe(landed[2]?.id);
      // Again: every turn has landed now, and the same checkpoints come back.
      expect(await commitTurns('s', turns, { expectedHead: base })).toEqual(landed);
    });

    it('names a bad turn by its place and lands none', async () => {
      const bad = { messages: [], meta: {} };
      const error = await commitTurns('s', [promptTurn('1'), bad], { expectedHead: base }).catch(
        (caught: unknown) => caught,
      );
      expect(ConfigError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ field: 'turns[1].messages' });
      const none = await commitTurns('s', [], { expectedHead: base }).catch((caught) => caught);
      expect(none).toMatchObject({ field: 'turns' });
      expect((await store.load('s')).head).toBe(base);
    });
  });
}
