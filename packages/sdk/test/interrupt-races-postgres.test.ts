import { ConfigError, SessionConflictError, type SessionStore } from '@mh/core';
import { ScriptedProvider } from '@mh/core/testing';
import { openPostgresStore } from '@mh/session-sql/postgres';
import { defineTool } from '@mh/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../src/agent.js';

/**
 * Double resumes on PostgreSQL: two agents, each on its own store (its own pool and connection),
 * resume the same interrupted session at once with the same approval. Exactly one run completes,
 * the approved call never runs twice, and the loser gets a typed error. Runs when MH_TEST_PG_URL
 * names a server (a schema of its own); MH_REQUIRE_POSTGRES=1 makes a missing URL a failure.
 */
const pgUrl = process.env.MH_TEST_PG_URL;
const pgRequired = process.env.MH_REQUIRE_POSTGRES === '1';
const RACES = 50;

/** Every run of `charge`, by session. */
let charges: string[] = [];

const charge = defineTool({
  name: 'charge',
  description: 'Charges the card',
  input: z.object({ session: z.string() }),
  permission: 'write',
  idempotent: false,
  needsApproval: true,
  run: async ({ session }) => {
    charges.push(session);
    return 'charged';
  },
});

/** Asks how much, then charges (a question, not an approval: the call runs, stops, runs again). */
const chargeAsking = defineTool({
  name: 'charge_asking',
  description: 'Asks the amount, then charges the card',
  input: z.object({ session: z.string() }),
  permission: 'write',
  idempotent: false,
  run: async ({ session }, { interrupt }) => {
    const cents = await interrupt?.({ question: 'How many cents?', schema: { type: 'integer' } });
    charges.push(`${session} ${String(cents)}`);
    return 'charged';
  },
});

const agentOn = (store: SessionStore, id: string, provider: ScriptedProvider): Agent =>
  new Agent({
    provider,
    model: 'm',
    tools: [charge, chargeAsking],
    permissions: { grants: ['write'] },
    session: { store, id },
  });

describe.skipIf(pgUrl === undefined && !pgRequired)('double resumes on PostgreSQL', () => {
  const stores: SessionStore[] = [];

  beforeAll(async () => {
    if (pgUrl === undefined) throw new Error('MH_REQUIRE_POSTGRES=1 but MH_TEST_PG_URL is not set');
    const schema = `mh_resume_races_${process.pid}_${Date.now().toString(36)}`;
    // Opened one after the other: the first creates the schema.
    stores.push(await openPostgresStore({ connectionString: pgUrl, schema }));
    stores.push(await openPostgresStore({ connectionString: pgUrl, schema }));
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it(`runs an approved call once when two agents on two connections resume at once (${RACES} races)`, async () => {
    const [one, two] = stores as [SessionStore, SessionStore];
    const counts = { completed: 0, twice: 0, conflict: 0, decided: 0, other: 0 };
    const others: unknown[] = [];
    for (let race = 0; race < RACES; race++) {
      charges = [];
      const id = `race-${race}`;
      const first = await agentOn(
        one,
        id,
        new ScriptedProvider([
          { toolCalls: [{ id: 'c1', name: 'charge', input: { session: id } }] },
        ]),
      ).run('Charge the card');
      expect(first.status).toBe('interrupted');
      const decisions = [{ callId: 'c1', approve: true as const }];
      const outcomes = await Promise.all(
        [one, two].map((store) =>
          agentOn(store, id, new ScriptedProvider([{ text: 'charged, done' }]))
            .resume({ decisions })
            .then(
              (result) => result?.error ?? result?.status,
              (error: unknown) => error,
            ),
        ),
      );
      const completed = outcomes.filter((outcome) => outcome === 'completed').length;
      counts.completed += completed;
      if (charges.length > 1) counts.twice++;
      for (const outcome of outcomes) {
        if (outcome === 'completed') continue;
        if (SessionConflictError.isInstance(outcome)) counts.conflict++;
        else if (ConfigError.isInstance(outcome) && outcome.field.startsWith('options.decisions'))
          counts.decided++;
        else {
          counts.other++;
          others.push(outcome);
        }
      }
      expect(completed, `race ${race}: ${String(outcomes)}`).toBe(1);
      expect(charges, `race ${race}`).toEqual([id]);
      // The session holds the one run: prompt, tool turn, result, answer.
      const stored = await one.load(id);
      expect(stored.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
    }
    process.stdout.write(
      `double resumes on PostgreSQL, ${RACES} races: ${counts.completed} completed, ` +
        `${counts.twice} ran the tool twice; losers: ${counts.conflict} SessionConflictError, ` +
        `${counts.decided} ConfigError(options.decisions…), ${counts.other} other\n`,
    );
    expect(others).toEqual([]);
    expect(counts).toEqual({
      completed: RACES,
      twice: 0,
      conflict: expect.any(Number),
      decided: RACES - counts.conflict,
      other: 0,
    });
  }, 180_000);

  it(`runs an answered call once when two agents on two connections answer at once (${RACES} races)`, async () => {
    const [one, two] = stores as [SessionStore, SessionStore];
    let losers = 0;
    for (let race = 0; race < RACES; race++) {
      charges = [];
      const id = `question-race-${race}`;
      const first = await agentOn(
        one,
        id,
        new ScriptedProvider([
          { toolCalls: [{ id: 'q1', name: 'charge_asking', input: { session: id } }] },
        ]),
      ).run('Charge the card');
      expect(first.interrupts?.map((interrupt) => interrupt.kind)).toEqual(['question']);
      const outcomes = await Promise.all(
        [one, two].map((store, index) =>
          agentOn(store, id, new ScriptedProvider([{ text: 'charged, done' }]))
            .resume({ decisions: [{ callId: 'q1', answer: 100 + index }] })
            .then(
              (result) => result?.error ?? result?.status,
              (error: unknown) => error,
            ),
        ),
      );
      expect(
        outcomes.filter((outcome) => outcome === 'completed'),
        `race ${race}`,
      ).toHaveLength(1);
      expect(charges, `race ${race}`).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome === 'completed') continue;
        const typed =
          SessionConflictError.isInstance(outcome) ||
          (ConfigError.isInstance(outcome) && outcome.field.startsWith('options.decisions'));
        expect(typed, `race ${race}: ${String(outcome)}`).toBe(true);
        losers++;
      }
      expect(await one.pendingTurn(id, 'main')).toBeUndefined();
    }
    expect(losers).toBe(RACES);
  }, 180_000);
});
