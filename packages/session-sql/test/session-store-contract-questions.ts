import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreTarget } from './session-store-contract.js';
import { assistantWithCalls, promptTurn, resultFor } from './turns.js';

const asked = (question: string, answers: unknown[] = []) => ({
  question,
  schema: { type: 'string' },
  answers,
});

/**
 * The journal of a tool's questions (`journalQuestion`, `journalAnswer`): a question held with
 * its call, answers kept with it, and an answer's claim won by exactly one of two stores.
 */
export function questionsContract(
  current: () => { readonly store: SessionStore; readonly target: StoreTarget },
): void {
  describe('questions of pending calls', () => {
    let store: SessionStore;
    beforeEach(async () => {
      store = current().store;
      await store.createSession({ id: 's' });
      const base = await store.commit('s', promptTurn('0'), { expectedHead: null });
      await store.journalTurn('s', 'main', base.id, assistantWithCalls('1', 2));
    });

    it('holds a call on its question (started, no result) and reads it back', async () => {
      await store.journalStart('s', 'main', 'call-1-0');
      await store.journalQuestion('s', 'main', 'call-1-0', asked('Where?'));
      const pending = await store.pendingTurn('s', 'main');
      const [first, second] = pending?.calls ?? [];
      expect(first).toMatchObject({ started: true, question: asked('Where?') });
      expect(first?.result).toBeUndefined();
      expect(second?.question).toBeUndefined();
      // Held: nobody can start it as a fresh call.
      await expect(store.journalStart('s', 'main', 'call-1-0')).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
    });

    it('holds a call that was never started (a repeatable tool is not claimed)', async () => {
      await store.journalQuestion('s', 'main', 'call-1-1', asked('When?', ['eu']));
      const pending = await store.pendingTurn('s', 'main');
      expect(pending?.calls[1]).toMatchObject({ started: true, question: asked('When?', ['eu']) });
    });

    it('claims an answered question once: answers kept, question cleared; a second claim conflicts', async () => {
      await store.journalQuestion('s', 'main', 'call-1-0', asked('Where?'));
      await store.journalAnswer('s', 'main', 'call-1-0', ['eu']);
      const after = (await store.pendingTurn('s', 'main'))?.calls[0];
      expect(after).toMatchObject({ started: true, answers: ['eu'] });
      expect(after?.question).toBeUndefined();
      await expect(store.journalAnswer('s', 'main', 'call-1-0', ['us'])).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      // It asks again; the next answer needs both.
      await store.journalQuestion('s', 'main', 'call-1-0', asked('When?', ['eu']));
      await expect(store.journalAnswer('s', 'main', 'call-1-0', ['x'])).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      await store.journalAnswer('s', 'main', 'call-1-0', ['eu', 9]);
      await store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 0));
      const done = (await store.pendingTurn('s', 'main'))?.calls[0];
      expect(done).toMatchObject({ started: true, result: resultFor('1', 0), answers: ['eu', 9] });
    });

    it('refuses a question for a finished call or a call not in the pending turn', async () => {
      await store.journalEnd('s', 'main', 'call-1-0', resultFor('1', 0));
      await expect(
        store.journalQuestion('s', 'main', 'call-1-0', asked('Where?')),
      ).rejects.toSatisfy(SessionConflictError.isInstance);
      await expect(store.journalQuestion('s', 'main', 'ghost', asked('Where?'))).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
      await expect(store.journalAnswer('s', 'main', 'call-1-1', ['x'])).rejects.toSatisfy(
        SessionConflictError.isInstance,
      );
    });

    it.each([
      [{ question: '', answers: [] }, 'question.question'],
      [{ question: 'q', schema: 'string', answers: [] }, 'question.schema'],
      [{ question: 'q', answers: {} }, 'question.answers'],
      [{ question: 'q', answers: [Number.POSITIVE_INFINITY] }, 'question.answers[0]'],
    ])('refuses the malformed question %j naming %s', async (question, field) => {
      const error = await store
        .journalQuestion('s', 'main', 'call-1-0', question as never)
        .catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error) && error.field).toBe(field);
      expect((await store.pendingTurn('s', 'main'))?.calls[0]?.question).toBeUndefined();
    });

    it('refuses answers that are not a JSON array, naming them', async () => {
      await store.journalQuestion('s', 'main', 'call-1-0', asked('Where?'));
      const error = await store
        .journalAnswer('s', 'main', 'call-1-0', 'eu' as never)
        .catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error) && error.field).toBe('answers');
    });

    it('drops the question with the pending turn when the turn is committed', async () => {
      await store.journalQuestion('s', 'main', 'call-1-0', asked('Where?'));
      const head = (await store.load('s')).head;
      await store.commit('s', promptTurn('2'), { expectedHead: head });
      expect(await store.pendingTurn('s', 'main')).toBeUndefined();
    });

    describe('two stores answering one question at once', () => {
      let second: SessionStore;
      beforeEach(async () => {
        second = await current().target.open();
      });
      afterEach(async () => {
        await second.close();
      });

      it('lets exactly one claim win; the other gets SessionConflictError', async () => {
        for (let round = 0; round < 10; round++) {
          const answers = Array.from({ length: round }, (_, index) => index);
          await store.journalQuestion('s', 'main', 'call-1-0', asked(`q${round}`, answers));
          const outcomes = await Promise.allSettled([
            store.journalAnswer('s', 'main', 'call-1-0', [...answers, 'a']),
            second.journalAnswer('s', 'main', 'call-1-0', [...answers, 'b']),
          ]);
          const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
          expect(won).toHaveLength(1);
          const lost = outcomes.find((outcome) => outcome.status === 'rejected');
          expect(SessionConflictError.isInstance(lost?.reason)).toBe(true);
        }
      });
    });
  });
}
