import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreTarget } from './session-store-contract.js';
import { assistantWithCalls, promptTurn, toolTurn } from './turns.js';

const settle = <T>(promises: readonly Promise<T>[]) => Promise.allSettled(promises);
const rejections = (outcomes: readonly PromiseSettledResult<unknown>[]): unknown[] =>
  outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));

/**
 * Two stores on one database, racing in one process: on SQLite their transactions queue for the
 * file's write lock, on PostgreSQL they run at once on two connection pools. Either way the
 * outcome must be one of the serial orders.
 */
export function concurrencyContract(
  current: () => { readonly store: SessionStore; readonly target: StoreTarget },
): void {
  describe('two stores on one database', () => {
    let first: SessionStore;
    let second: SessionStore;
    beforeEach(async () => {
      first = current().store;
      second = await current().target.open();
    });
    afterEach(async () => {
      await second.close();
    });

    it('lets exactly one of two commits on one head win; the loser gets SessionConflictError', async () => {
      await first.createSession({ id: 's' });
      const rounds = 25;
      for (let round = 0; round < rounds; round++) {
        const [a, b] = await Promise.all([first.load('s'), second.load('s')]);
        expect(a.head).toBe(b.head);
        const outcomes = await settle([
          first.commit('s', promptTurn(`a${round}`), { expectedHead: a.head }),
          second.commit('s', promptTurn(`b${round}`), { expectedHead: b.head }),
        ]);
        const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const losers = rejections(outcomes);
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

    it('gives both writers the one checkpoint when the same turn is committed twice at once', async () => {
      await first.createSession({ id: 's' });
      for (let round = 0; round < 10; round++) {
        const { head } = await first.load('s');
        const [a, b] = await Promise.all([
          first.commit('s', toolTurn(`same${round}`), { expectedHead: head }),
          second.commit('s', toolTurn(`same${round}`), { expectedHead: head }),
        ]);
        expect(b).toEqual(a);
      }
      expect((await second.load('s')).checkpoints).toHaveLength(10);
    });

    it('creates a session id once when two stores create it at the same moment', async () => {
      for (let round = 0; round < 10; round++) {
        const outcomes = await settle([
          first.createSession({ id: `s${round}` }),
          second.createSession({ id: `s${round}` }),
        ]);
        const failures = rejections(outcomes);
        expect(failures).toHaveLength(1);
        expect(ConfigError.isInstance(failures[0])).toBe(true);
        expect((failures[0] as ConfigError).field).toBe('id');
      }
      expect(await first.listSessions()).toHaveLength(10);
    });

    it('creates a branch name once when two stores fork to it at the same moment', async () => {
      await first.createSession({ id: 's' });
      await first.commit('s', promptTurn('root'), { expectedHead: null });
      for (let round = 0; round < 10; round++) {
        const outcomes = await settle([
          first.fork('s', `b${round}`, 'main'),
          second.rewind('s', null, `b${round}`),
        ]);
        const failures = rejections(outcomes);
        expect(failures).toHaveLength(1);
        expect((failures[0] as ConfigError).field).toBe('newBranch');
      }
      expect(await first.listBranches('s')).toHaveLength(11);
    });

    it('keeps the last of two pending turns journaled on one branch at once', async () => {
      await first.createSession({ id: 's' });
      await Promise.all([
        first.journalTurn('s', 'main', null, assistantWithCalls('x')),
        second.journalTurn('s', 'main', null, assistantWithCalls('y')),
      ]);
      const pending = await first.pendingTurn('s', 'main');
      expect(['assistant-x', 'assistant-y']).toContain(pending?.assistant.id);
      const tag = pending?.assistant.id.slice('assistant-'.length) ?? '';
      expect(pending?.calls.map((call) => call.call.id)).toEqual([
        `call-${tag}-0`,
        `call-${tag}-1`,
      ]);
    });

    it('deletes a session while another commits the same messages, leaving that one whole', async () => {
      for (let round = 0; round < 5; round++) {
        const gone = `gone${round}`;
        const kept = `kept${round}`;
        await first.createSession({ id: gone });
        await second.createSession({ id: kept });
        await first.commit(gone, toolTurn(`shared${round}`), { expectedHead: null });
        await Promise.all([
          first.deleteSession(gone),
          second.commit(kept, toolTurn(`shared${round}`), { expectedHead: null }),
        ]);
        const state = await first.load(kept);
        expect(state.messages).toEqual(toolTurn(`shared${round}`).messages);
        expect(await second.getSession(gone)).toBeUndefined();
      }
    });
  });
}
