// A durable-agents worker in its own process, as a deployment runs one: it registers the agent,
// launches DBOS with a unique executor id and takes runs from the `agents` queue. Its tools log
// every run of theirs to a side file, so the test counts how often each call ran.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { durableAgents, launchWorker } from '@mh/durable-dbos';
import { openai } from '@mh/providers/openai';
import { Agent } from '@mh/sdk';
import { openPostgresStore } from '@mh/session-sql/postgres';
import { defineTool } from '@mh/tools';
import OpenAI from 'openai';
import { z } from 'zod';

const job = JSON.parse(process.argv[2]);
const store = await openPostgresStore({ connectionString: job.storeUrl, schema: job.storeSchema });
const client = new OpenAI({
  baseURL: job.modelUrl,
  apiKey: 'test',
  maxRetries: 0,
  defaultHeaders: { 'x-mh-worker': String(process.pid) },
});
const provider = openai({ client });
const log = (line) => appendFileSync(job.sideFile, `${line}\n`);

const save = defineTool({
  name: 'save',
  description: 'Saves a note (not idempotent).',
  permission: 'write',
  needsApproval: ({ note }) => note.startsWith('approve'),
  input: z.object({ note: z.string() }),
  run: async ({ note }, context) => {
    log(`start ${context.callId} ${process.pid}`);
    await sleep(job.toolMs ?? 300);
    log(`end ${context.callId} ${process.pid}`);
    return `saved ${note}`;
  },
});
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a note up (read-only).',
  permission: 'read',
  input: z.object({}),
  run: async (_input, context) => {
    log(`read ${context.callId} ${process.pid}`);
    return 'found';
  },
});

durableAgents({
  dbos: DBOS,
  store,
  agents: {
    support: ({ steps, session, fencing }) =>
      new Agent({
        provider,
        model: 'gpt-4.1-mini',
        tools: [save, lookup],
        permissions: { grants: ['read', 'write'] },
        session,
        steps,
        fencing,
      }),
  },
});
const worker = await launchWorker({
  dbos: DBOS,
  config: {
    name: 'mh-durable-test',
    systemDatabaseUrl: job.systemUrl,
    applicationVersion: 'test-1',
    logLevel: 'error',
  },
  queues: job.queues ?? { agents: job.queueLimits ?? {} },
  recoveryIntervalMs: job.recoveryIntervalMs ?? 200,
  onError: (error) => process.stderr.write(`watch: ${error?.message ?? error}\n`),
});
process.stdout.write(`ready ${process.pid} ${worker.executorId}\n`);
const stop = async () => {
  await worker.stop();
  await store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
