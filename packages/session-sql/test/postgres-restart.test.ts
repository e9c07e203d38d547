import { setTimeout as sleep } from 'node:timers/promises';
import { SessionStoreUnavailableError } from '@mh/core';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { openPostgresStore, type PostgresSessionStore } from '../src/postgres/index.js';
import { readOutcomes, startFleet, verifyFleet } from './fleet-race.js';
import { postgresRowCounts } from './postgres-inspect.js';
import { describePostgres } from './postgres-target.js';
import { buildPackage, go } from './process-harness.js';
import { createDatabase } from './support/throwaway-postgres.mjs';
import { promptTurn, tempDir } from './turns.js';

/** The error `promise` rejects with. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

// These tests stop and start the server: they always run a server of their own.
describePostgres(
  'PostgresSessionStore when the database restarts',
  (postgres) => {
    beforeAll(() => {
      buildPackage();
    }, 120_000);

    let url: string;
    let store: PostgresSessionStore | undefined;
    beforeEach(async () => {
      url = await createDatabase(postgres().serverUrl);
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
    });

    it('fails calls with a retryable "unreachable" error while the server is down, then recovers', async () => {
      const server = postgres().server;
      if (!server) throw new Error('this suite needs its own server');
      const withPassword = url.replace('mh@', 'mh:hunter2@');
      store = await openPostgresStore({ connectionString: withPassword, connectTimeoutMs: 2000 });
      await store.createSession({ id: 's' });
      const first = await store.commit('s', promptTurn('1'), { expectedHead: null });
      server.stop('immediate');
      try {
        const error = await failure(store.commit('s', promptTurn('2'), { expectedHead: first.id }));
        expect(SessionStoreUnavailableError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ failure: 'unreachable', retryable: true });
        expect((error as Error).message).toContain(`127.0.0.1:${server.port}`);
        expect((error as Error).message).not.toContain('hunter2');
        const listed = await failure(store.listSessions());
        expect(listed).toMatchObject({ failure: 'unreachable' });
      } finally {
        server.start();
      }
      // The same store, with the pool it had: the dead connections are replaced.
      const second = await store.commit('s', promptTurn('2'), { expectedHead: first.id });
      const state = await store.load('s');
      expect(state.checkpoints.map((c) => c.id)).toEqual([first.id, second.id]);
    });

    it('reports a commit cut off by a crash as outcome-unknown; retrying it is safe', async () => {
      const server = postgres().server;
      if (!server) throw new Error('this suite needs its own server');
      let crashBeforeCommit = false;
      store = await openPostgresStore({
        connectionString: url,
        onQuery: (sql) => {
          // The last statement of a commit's transaction: the server dies before COMMIT arrives.
          if (crashBeforeCommit && sql.startsWith('delete from "mh"."pending_turns"')) {
            crashBeforeCommit = false;
            server.stop('immediate');
          }
        },
      });
      await store.createSession({ id: 's' });
      crashBeforeCommit = true;
      let error: unknown;
      try {
        error = await failure(store.commit('s', promptTurn('1'), { expectedHead: null }));
      } finally {
        server.start();
      }
      expect(error).toMatchObject({ failure: 'outcome-unknown', retryable: true });
      const retried = await store.commit('s', promptTurn('1'), { expectedHead: null });
      expect((await store.load('s')).checkpoints).toEqual([retried]);
    });

    it('keeps every acknowledged commit of 4 workers through a crash and restart mid-run', async () => {
      const server = postgres().server;
      if (!server) throw new Error('this suite needs its own server');
      const folder = await tempDir();
      try {
        const plan = {
          spec: url,
          workers: 4,
          sessions: 10,
          commits: 100,
          dir: folder.dir,
          pauseAfter: 25,
        };
        const open = () => openPostgresStore({ connectionString: url });
        const { children, logs } = await startFleet(plan, open);
        // Every worker stops a quarter of the way in, so the crash falls inside every worker's
        // run however slow the machine: racing a poll against the commits could miss it.
        await Promise.all(children.map((child) => child.printed('paused')));
        server.stop('immediate');
        try {
          go(children);
          const limit = Date.now() + 10_000;
          while (!readOutcomes(logs).some((line) => line.outcome === 'unavailable')) {
            if (Date.now() > limit) throw new Error('no worker saw the server down within 10 s');
            await sleep(20);
          }
        } finally {
          server.start();
        }
        expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0, 0]);
        store = await open();
        const outcomes = readOutcomes(logs);
        const rows = await postgresRowCounts(url);
        const counts = await verifyFleet(plan, outcomes, store, rows.checkpoints ?? -1);
        expect(counts.unavailable).toBeGreaterThan(0);
        const failures = new Set(
          outcomes.flatMap((line) => (line.outcome === 'unavailable' ? [line.failure] : [])),
        );
        expect([...failures].every((f) => f === 'unreachable' || f === 'outcome-unknown')).toBe(
          true,
        );
      } finally {
        await folder.remove();
      }
    }, 300_000);
  },
  { ownServer: true },
);
