// The README's worker example, verbatim: readme-examples.test.ts checks it matches the README, and
// type-checking the tests compiles it.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableAgents, launchWorker } from '@mh/durable-dbos';
import { Agent, fake } from '@mh/sdk';
import { openPostgresStore } from '@mh/session-sql/postgres';

const url = process.env.DATABASE_URL ?? 'postgres://localhost/agents';
const store = await openPostgresStore({ connectionString: url });
durableAgents({
  dbos: DBOS,
  store,
  agents: {
    support: ({ steps, session, fencing }) =>
      new Agent({ provider: fake(), model: 'claude-sonnet-4-5', session, steps, fencing }),
  },
});
const worker = await launchWorker({
  dbos: DBOS,
  config: { name: 'support-app', systemDatabaseUrl: url, applicationVersion: '2026-12-04' },
  queues: { agents: { globalConcurrency: 20, workerConcurrency: 5 } },
});
process.on('SIGTERM', () => void worker.stop());
