import type { WorkflowStatus } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import type { Dbos } from './dbos-steps.js';

/** The advisory lock key of an executor (`hashtext` of this prefix and its id). */
const LOCK_PREFIX = 'mh.dbos.executor:';
/** The workflows a watcher takes over: the durable agents' (`workflowName`), no other app's. */
const WORKFLOW_PREFIX = 'mh.agent.';

/** A worker's lease: held while it lives. */
export interface Lease {
  release(): Promise<void>;
}

/** A watch over the other workers. */
export interface Watch {
  /** Workflows this worker took over from dead workers so far. */
  readonly recovered: readonly string[];
  stop(): Promise<void>;
}

/** A worker's liveness: its lease and its watch over the others (`startLiveness`). */
export interface Liveness extends Watch {}

/**
 * Creates the system database if it does not exist yet (DBOS would on launch, but the lease comes
 * first and lives in it). Two workers creating it at once: the second finds it made.
 */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (name === '') return;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  client.on('error', () => {});
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client
        .query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`)
        .catch((error: unknown) => {
          // 42P04 duplicate_database, 23505 a concurrent CREATE DATABASE won the race.
          const code = (error as { code?: unknown }).code;
          if (code !== '42P04' && code !== '23505') throw error;
        });
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/** Opens a connection of its own to the system database, named for `pg_stat_activity`. */
async function connect(url: string, role: string, executorId: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: `mh-${role}:${executorId}`.slice(0, 63),
    // A connection a NAT or a balancer drops silently is noticed, and the server reaps it.
    keepAlive: true,
  });
  // Errors come back through the next query; without a listener one would crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/**
 * Takes the lease of `executorId`: a session advisory lock on a connection of its own, which the
 * server drops the moment the process dies (a kill -9 closes the socket). Take it before
 * `DBOS.launch()`, so no workflow runs under an executor that holds no lease. The connection is
 * checked every `checkMs`; `onLost` is called once if it breaks (others may then take this
 * worker's runs over). Throws if a live process already holds the lease (the same executor id).
 */
export async function takeLease(options: {
  readonly systemDatabaseUrl: string;
  readonly executorId: string;
  readonly checkMs: number;
  readonly onLost?: (error: unknown) => void;
}): Promise<Lease> {
  const { executorId } = options;
  await ensureDatabase(options.systemDatabaseUrl);
  const lease = await connect(options.systemDatabaseUrl, 'lease', executorId);
  const taken = await lease.query<{ ok: boolean }>(
    'SELECT pg_try_advisory_lock(hashtext($1)) AS ok',
    [LOCK_PREFIX + executorId],
  );
  if (taken.rows[0]?.ok !== true) {
    await lease.end();
    throw new Error(`another live worker already uses the executor id ${executorId}`);
  }
  let released = false;
  let lost = false;
  const onLost = (error: unknown): void => {
    if (released || lost) return;
    lost = true;
    clearInterval(check);
    options.onLost?.(error);
  };
  lease.on('error', onLost);
  lease.on('end', () => onLost(new Error(`the lease connection of ${executorId} ended`)));
  const check = setInterval(() => {
    lease.query('SELECT 1').catch(onLost);
  }, options.checkMs);
  check.unref();
  return {
    async release() {
      released = true;
      clearInterval(check);
      await lease.end().catch(() => {});
    },
  };
}

/**
 * Watches for dead workers: every `intervalMs`, lists the pending durable-agent workflows of this
 * application version held by other executors, and for each executor whose lease it can take (so
 * no live process holds it) re-enqueues that executor's pending workflows with
 * `DBOS.resumeWorkflows`, on their own queues, while holding the lease: two watchers never take
 * over the same workflows, and a live worker's workflows are never touched. Another worker then
 * dequeues each one and DBOS replays it from its recorded steps. Other applications' workflows and
 * other versions' are left alone. An executor that never took a lease looks dead to it: start
 * every worker of the durable agents with `launchWorker` (or `takeLease` before `DBOS.launch()`).
 */
export async function watchDeadWorkers(options: {
  readonly dbos: Dbos;
  readonly systemDatabaseUrl: string;
  readonly executorId: string;
  readonly intervalMs: number;
  readonly onError?: (error: unknown) => void;
}): Promise<Watch> {
  const { dbos, executorId, intervalMs, systemDatabaseUrl } = options;
  let watch = await connect(systemDatabaseUrl, 'watch', executorId);
  const recovered: string[] = [];
  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  const tick = (): void => {
    round = takeOverDead(dbos, watch, executorId, recovered).catch(async (error: unknown) => {
      if (stopped) return;
      options.onError?.(error);
      // A broken watch connection is replaced for the next round.
      await watch.end().catch(() => {});
      watch = await connect(systemDatabaseUrl, 'watch', executorId).catch(() => watch);
    });
  };
  const timer = setInterval(() => {
    void round.then(tick);
  }, intervalMs);
  timer.unref();
  tick();
  return {
    recovered,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round;
      await watch.end().catch(() => {});
    },
  };
}

/** `takeLease` and `watchDeadWorkers` together, for a DBOS already launched. */
export async function startLiveness(options: {
  readonly dbos: Dbos;
  readonly systemDatabaseUrl: string;
  readonly executorId: string;
  readonly intervalMs: number;
  readonly onError?: (error: unknown) => void;
  readonly onLost?: (error: unknown) => void;
}): Promise<Liveness> {
  const lease = await takeLease({ ...options, checkMs: options.intervalMs });
  try {
    const watch = await watchDeadWorkers(options);
    return {
      recovered: watch.recovered,
      async stop() {
        await watch.stop();
        await lease.release();
      },
    };
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/** One watch round: takes over the pending workflows of every executor whose lease is free. */
async function takeOverDead(
  dbos: Dbos,
  watch: pg.Client,
  self: string,
  recovered: string[],
): Promise<void> {
  const ours = { applicationVersion: dbos.applicationVersion, loadInput: false, loadOutput: false };
  const pending = (await dbos.listWorkflows({ status: 'PENDING', ...ours })).filter(isAgentRun);
  const executors = new Set(
    pending.map((status) => status.executorId).filter((id): id is string => !!id && id !== self),
  );
  for (const executor of executors) {
    const key = LOCK_PREFIX + executor;
    const free = await watch.query<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock(hashtext($1)) AS ok',
      [key],
    );
    if (free.rows[0]?.ok !== true) continue;
    try {
      // Listed again under the lock: another watcher may have taken them over meanwhile.
      const orphans = (
        await dbos.listWorkflows({ status: 'PENDING', executorId: executor, ...ours })
      ).filter(isAgentRun);
      for (const [queue, ids] of byQueue(orphans)) {
        await dbos.resumeWorkflows(ids, queue === undefined ? {} : { queueName: queue });
        recovered.push(...ids);
      }
    } finally {
      await watch.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  }
}

const isAgentRun = (status: WorkflowStatus): boolean =>
  status.workflowName.startsWith(WORKFLOW_PREFIX);

function byQueue(statuses: readonly WorkflowStatus[]): Map<string | undefined, string[]> {
  const groups = new Map<string | undefined, string[]>();
  for (const status of statuses) {
    const ids = groups.get(status.queueName) ?? [];
    ids.push(status.workflowID);
    groups.set(status.queueName, ids);
  }
  return groups;
}
