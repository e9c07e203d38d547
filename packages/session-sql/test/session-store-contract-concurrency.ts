import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreTarget } from './session-store-contract.js';
import { assistantWithCalls, promptTurn, resultFor, toolTurn } from './turns.js';

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

    it('lets exactly one of two pending turns journaled on one head at once win', async () => {
      await first.createSession({ id: 's' });
      for (let round = 0; round < 10; round++) {
        const { head } = await first.load('s');
        const outcomes = await settle([
          first.journalTurn('s', 'main', head, assistantWithCalls(`x${round}`)),
          second.journalTurn('s', 'main', head, assistantWithCalls(`y${round}`)),
        ]);
        const losers = rejections(outcomes);
        expect(losers).toHaveLength(1);
        expect(SessionConflictError.isInstance(losers[0]), String(losers[0])).toBe(true);
        const winner = outcomes[0]?.status === 'fulfilled' ? `x${round}` : `y${round}`;
        const pending = await second.pendingTurn('s', 'main');
        expect(pending?.assistant.id).toBe(`assistant-${winner}`);
        expect(pending?.calls.map((call) => call.call.id)).toEqual([
          `call-${winner}-0`,
          `call-${winner}-1`,
        ]);
        await first.commit('s', toolTurn(winner), { expectedHead: head });
      }
    });

    it('keeps the pending turn with the writer whose head it sits on, over 100 races (issue 15 #3)', async () => {
      await first.createSession({ id: 's' });
      // Staggered starts, and now and then a slow gap (a few writes long on this engine) between a
      // writer's commit and its journal, so the other writer's whole load, commit and journal
      // can fit into it: the stale-writer order of the issue.
      const timed = Date.now();
      for (let i = 0; i < 5; i++)
        await first.journalTurn('s', 'main', null, assistantWithCalls('t'));
      const unit = Math.max(1, (Date.now() - timed) / 5);
      await first.commit('s', promptTurn('start'), { expectedHead: null });
      const sleep = (units: number) => new Promise((resolve) => setTimeout(resolve, units * unit));
      // One writer's turn, the way the agent runs it; any step may lose to the other writer.
      const runTurn = async (store: SessionStore, tag: string): Promise<void> => {
        await sleep(Math.random() * 3);
        const { head } = await store.load('s');
        const prompt = await store.commit('s', promptTurn(tag), { expectedHead: head });
        await sleep(Math.random() < 0.4 ? 2 + Math.random() * 3 : 0);
        await store.journalTurn('s', 'main', prompt.id, assistantWithCalls(tag, 1));
        await store.journalStart('s', 'main', `call-${tag}-0`);
        await store.journalEnd('s', 'main', `call-${tag}-0`, resultFor(tag, 0));
        await store.commit('s', toolTurn(tag, 1), { expectedHead: prompt.id });
      };
      const kinds = { ok: 0, conflict: 0 };
      for (let race = 0; race < 100; race++) {
        const outcomes = await settle([runTurn(first, `a${race}`), runTurn(second, `b${race}`)]);
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled') kinds.ok += 1;
          else if (SessionConflictError.isInstance(outcome.reason)) kinds.conflict += 1;
          else throw outcome.reason;
        }
        const [state, pending] = await Promise.all([
          first.load('s'),
          second.pendingTurn('s', 'main'),
        ]);
        if (pending === undefined) continue;
        // A pending turn sits on the head, and the head is that writer's own prompt.
        expect(pending.baseHead).toBe(state.head);
        const tag = pending.assistant.id.slice('assistant-'.length);
        expect(state.checkpoints.at(-1)?.messageIds).toEqual([`user-${tag}`]);
      }
      expect(kinds.ok + kinds.conflict).toBe(200);
      expect(kinds.ok).toBeGreaterThan(0);
      // 100 races of ~10 durable writes each: well past the default timeout on a loaded machine.
    }, 240_000);

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
