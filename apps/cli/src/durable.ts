import { createHash } from 'node:crypto';
import type { DurableAgentContext } from '@mh/durable-dbos';
import type { Decision, Interrupt, RunResult } from '@mh/sdk';
import { APPROVAL_EXIT_CODE, waitingNotice } from './approvals.js';
import type { CliOptions } from './args.js';
import {
  agentFor,
  buildProvider,
  localTools,
  newSessionId,
  openStore,
  shownDb,
  startMcpServers,
} from './build-agent.js';

/** The name the workers register the command line's agent under. */
const AGENT = 'mh';
/** The queue runs go on without `--queue`. */
const QUEUE = 'agents';

/**
 * The application version of a worker: mh's version and the flags that shape the agent (provider,
 * model, system prompt, grants, root, MCP servers), hashed. A run is recovered only by a worker of
 * its own version, so a worker with other tools never replays it down another path.
 */
function applicationVersion(options: CliOptions, version: string): string {
  const shape = JSON.stringify([
    options.provider,
    options.model,
    options.baseURL,
    options.api,
    options.system,
    options.grants,
    options.root,
    options.mcp,
    options.maxTurns,
    options.maxOutputTokens,
    options.contextWindow,
    options.compaction,
  ]);
  return `mh-${version}-${createHash('sha256').update(shape).digest('hex').slice(0, 12)}`;
}

/**
 * `mh worker --db postgres://…`: a durable worker. It registers the agent the flags describe,
 * launches DBOS on the same database (its own `dbos` schema) and takes runs from `--queue`
 * (default `agents`, at most `--concurrency` at once on this worker) until SIGINT or SIGTERM.
 */
export async function runWorker(options: CliOptions, version: string): Promise<number> {
  const db = options.db ?? '';
  const [{ DBOS }, durable] = await Promise.all([
    import('@dbos-inc/dbos-sdk'),
    import('@mh/durable-dbos'),
  ]);
  const store = await openStore(db);
  const registry = localTools(options);
  const servers = await startMcpServers(options, registry);
  const provider = await buildProvider(options);
  durable.durableAgents({
    dbos: DBOS,
    store,
    agents: {
      [AGENT]: (context: DurableAgentContext) =>
        agentFor(options, { provider, registry, durable: context }),
    },
  });
  const queue = options.queue ?? QUEUE;
  const worker = await durable.launchWorker({
    dbos: DBOS,
    config: {
      name: 'mh',
      systemDatabaseUrl: db,
      applicationVersion: applicationVersion(options, version),
      logLevel: 'error',
    },
    queues: {
      [queue]: options.concurrency === undefined ? {} : { workerConcurrency: options.concurrency },
    },
    onError: (error) =>
      process.stderr.write(
        `mh: worker: ${error instanceof Error ? error.message : String(error)}\n`,
      ),
  });
  process.stderr.write(
    `mh worker ${worker.executorId}: taking runs from queue ${queue} in ${shownDb(db)} (Ctrl-C to stop)\n`,
  );
  const stopped = new Promise<number>((resolve) => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const)
      process.once(signal, () => resolve(code));
  });
  const code = await stopped;
  process.stderr.write('mh worker: stopping (runs in flight are taken over by another worker)\n');
  await worker.stop();
  await servers.close();
  await store.close();
  return code === 130 ? 0 : code;
}

/**
 * `mh --db postgres://… --enqueue PROMPT`: enqueues a run for the workers and follows it; and
 * `mh --db postgres://… --workflow ID --approve CALL_ID`: sends decisions to a parked run and
 * follows it. Prints the answer (0), or the calls that wait with the command that answers them
 * (5), or the failure (1).
 */
export async function runEnqueued(options: CliOptions): Promise<number> {
  const db = options.db ?? '';
  const [{ DBOSClient }, durable] = await Promise.all([
    import('@dbos-inc/dbos-sdk'),
    import('@mh/durable-dbos'),
  ]);
  const client = await DBOSClient.create({ systemDatabaseUrl: db });
  try {
    let workflowId = options.workflow;
    let before: string | undefined;
    if (options.enqueue !== undefined) {
      const session = options.session ?? newSessionId();
      const run = await durable.enqueueRun(client, {
        agent: AGENT,
        prompt: options.enqueue,
        session,
        queue: options.queue ?? QUEUE,
      });
      workflowId = run.workflowId;
      process.stderr.write(
        `(enqueued run ${workflowId} on queue ${options.queue ?? QUEUE}, session ${session}; follow it again with --db ${shownDb(db)} --workflow ${workflowId})\n`,
      );
    } else if (options.decisions.length > 0) {
      before = await eventOf(client, workflowId ?? '', durable.INTERRUPTS_EVENT);
      await durable.sendDecisions(client, workflowId ?? '', options.decisions as Decision[]);
    }
    return await follow(client, workflowId ?? '', db, before, durable);
  } finally {
    await client.destroy();
  }
}

type Client = Awaited<ReturnType<typeof import('@dbos-inc/dbos-sdk')['DBOSClient']['create']>>;

async function eventOf(client: Client, workflowId: string, key: string): Promise<string> {
  return JSON.stringify((await client.getEvent(workflowId, key, 0)) ?? null);
}

/** Waits for the run to end or to park (with calls other than those of `stale`). */
async function follow(
  client: Client,
  workflowId: string,
  db: string,
  stale: string | undefined,
  durable: typeof import('@mh/durable-dbos'),
): Promise<number> {
  const handle = client.retrieveWorkflow(workflowId);
  for (;;) {
    const status = await handle.getStatus();
    if (status === null) {
      process.stderr.write(`mh: no run ${workflowId} in ${shownDb(db)}\n`);
      return 1;
    }
    if (status.status === 'SUCCESS') {
      const result = durable.runOfRecord((await handle.getResult()) as never) as RunResult;
      return printed(result, workflowId, db);
    }
    if (status.status === 'ERROR' || status.status === 'CANCELLED') {
      process.stderr.write(`mh: run ${workflowId} ended ${status.status.toLowerCase()}\n`);
      return 1;
    }
    const waiting = await eventOf(client, workflowId, durable.INTERRUPTS_EVENT);
    if (waiting !== stale && waiting !== 'null' && waiting !== '[]') {
      process.stderr.write(
        waitingNotice(
          JSON.parse(waiting) as Interrupt[],
          `--db ${shownDb(db)} --workflow ${workflowId}`,
        ),
      );
      return APPROVAL_EXIT_CODE;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function printed(result: RunResult, workflowId: string, db: string): number {
  if (result.text !== '') process.stdout.write(`${result.text}\n`);
  if (result.status === 'completed') return 0;
  if (result.status === 'interrupted') {
    // The run waited longer than the workers' decision timeout: its session still holds the turn.
    process.stderr.write(
      `mh: run ${workflowId} stopped waiting for approval; resume its session with mh --db ${shownDb(db)} --session ID\n`,
    );
    return APPROVAL_EXIT_CODE;
  }
  process.stderr.write(
    `mh: run ${workflowId} ended ${result.status}${result.error ? `: ${result.error.message}` : ''}\n`,
  );
  return 1;
}
