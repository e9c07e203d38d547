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
import { UsageError } from './usage-error.js';

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
  quietDbosWarnings();
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
  process.stderr.write(
    'mh worker: stopping (a run in flight continues on another worker, or on this one when it starts again)\n',
  );
  await worker.stop();
  await servers.close();
  await store.close();
  return code;
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
  quietDbosWarnings();
  const client = await DBOSClient.create({ systemDatabaseUrl: db }).catch((error: unknown) => {
    throw new UsageError(
      `--db ${shownDb(db)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  try {
    let workflowId = options.workflow;
    let before: Snapshot | undefined;
    if (options.enqueue !== undefined) {
      if (options.session !== undefined) await refuseMissingSession(db, options.session);
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
    } else {
      const status = await client.retrieveWorkflow(workflowId ?? '').getStatus();
      if (status === null) {
        process.stderr.write(`mh: no run ${workflowId} in ${shownDb(db)}\n`);
        return 1;
      }
      if (options.decisions.length > 0) {
        if (ENDED.has(status.status)) {
          process.stderr.write(
            `mh: run ${workflowId} has ended (${status.status.toLowerCase()}): no call waits for a decision\n`,
          );
          return 2;
        }
        before = await snapshot(client, workflowId ?? '', durable);
        await durable.sendDecisions(client, workflowId ?? '', options.decisions as Decision[]);
      }
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

/** The statuses of a run that is over. */
const ENDED = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);

/** What a run published before decisions were sent: its waiting calls and its last refusal. */
interface Snapshot {
  readonly waiting: string;
  readonly refused: string;
}

async function snapshot(
  client: Client,
  workflowId: string,
  durable: typeof import('@mh/durable-dbos'),
): Promise<Snapshot> {
  return {
    waiting: await eventOf(client, workflowId, durable.INTERRUPTS_EVENT),
    refused: await eventOf(client, workflowId, durable.REFUSED_EVENT),
  };
}

/** Refuses `--session ID` for a session the database does not hold, as a local run does. */
async function refuseMissingSession(db: string, session: string): Promise<void> {
  const store = await openStore(db);
  try {
    if (!(await store.getSession(session)))
      throw new UsageError(
        `no session ${session} in ${shownDb(db)} (see --list-sessions; omit --session to start one)`,
      );
  } finally {
    await store.close();
  }
}

/** DBOS's pg pool warns of overlapping queries on every command: not the user's concern. */
function quietDbosWarnings(): void {
  const emit = process.emitWarning.bind(process);
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('Calling client.query() when the client is already executing a query'))
      return;
    (emit as (...args: unknown[]) => void)(warning, ...rest);
  }) as typeof process.emitWarning;
}

/** How long a run may stay queued before mh says that no worker seems to take it. */
const QUEUED_HINT_MS = 5_000;

/**
 * Waits for the run to end or to park on other calls than `stale`'s, or for the decisions just
 * sent to be refused (a new refusal).
 */
async function follow(
  client: Client,
  workflowId: string,
  db: string,
  stale: Snapshot | undefined,
  durable: typeof import('@mh/durable-dbos'),
): Promise<number> {
  const handle = client.retrieveWorkflow(workflowId);
  const startedAt = Date.now();
  let hinted = false;
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
    if (stale !== undefined) {
      const refused = await eventOf(client, workflowId, durable.REFUSED_EVENT);
      if (refused !== stale.refused && refused !== 'null') {
        const { message } = JSON.parse(refused) as { message?: string };
        process.stderr.write(`mh: run ${workflowId} refused the decisions: ${message}\n`);
        return 2;
      }
    }
    const waiting = await eventOf(client, workflowId, durable.INTERRUPTS_EVENT);
    if (waiting !== stale?.waiting && waiting !== 'null' && waiting !== '[]') {
      process.stderr.write(
        waitingNotice(
          JSON.parse(waiting) as Interrupt[],
          `--db ${shownDb(db)} --workflow ${workflowId}`,
          { durable: true },
        ),
      );
      return APPROVAL_EXIT_CODE;
    }
    if (!hinted && status.status === 'ENQUEUED' && Date.now() - startedAt > QUEUED_HINT_MS) {
      hinted = true;
      process.stderr.write(
        `mh: run ${workflowId} is still queued: no worker has taken it yet (start one with mh worker --db ${shownDb(db)} and the agent's flags); Ctrl-C stops following, the run stays queued\n`,
      );
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
