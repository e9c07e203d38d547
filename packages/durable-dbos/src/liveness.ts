import type { WorkflowStatus } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import type { Dbos } from './dbos-steps.js';

/** The advisory lock key of an executor (`hashtext` of this prefix and its id). */
const LOCK_PREFIX = 'mh.dbos.executor:';

/** A worker's liveness: its lease, held while it lives, and its watch over the others. */
export interface Liveness {
  /** Workflows this worker took over from dead workers so far. */
  readonly recovered: readonly string[];
  /** Releases the lease and stops watching. */
  stop(): Promise<void>;
}

/**
 * DBOS recovers a crashed executor's workflows when that executor starts again; nothing notices
 * a worker that never comes back. This does, with PostgreSQL's own lifetimes: each worker holds a
 * session advisory lock named after its executor id on a connection of its own, which the server
 * drops the moment the process dies (a kill -9 closes the socket). Every `intervalMs` each worker
 * lists the pending workflows of other executors, and for each executor whose lock it can take
 * (so no live process holds it) re-enqueues that executor's pending workflows with
 * `DBOS.resumeWorkflows`, on their own queues, while holding the lock: two watchers never take
 * over the same workflows, and a live worker's workflows are never touched. Another worker then
 * dequeues each one and DBOS replays it from its recorded steps.
 */
export async function startLiveness(options: {
  readonly dbos: Dbos;
  readonly systemDatabaseUrl: string;
  readonly executorId: string;
  readonly intervalMs: number;
  /** Told of a failed watch round (the next round tries again with a new connection). */
  readonly onError?: (error: unknown) => void;
  /**
   * Called once if the lease's connection breaks: other workers may then take this worker's runs
   * over, so it must stop running them (`launchWorker` shuts DBOS down).
   */
  readonly onLost?: (error: unknown) => void;
}): Promise<Liveness> {
  const { dbos, executorId, intervalMs } = options;
  const connect = async (role: string): Promise<pg.Client> => {
    const client = new pg.Client({
      connectionString: options.systemDatabaseUrl,
      application_name: `mh-${role}:${executorId}`.slice(0, 63),
    });
    // Errors come back through the next query; without a listener one would crash the process.
    client.on('error', () => {});
    await client.connect();
    return client;
  };
  const lease = await connect('lease');
  let watch = await connect('watch');
  // A lease that cannot be taken means another live process uses the same executor id.
  const taken = await lease.query<{ ok: boolean }>(
    'SELECT pg_try_advisory_lock(hashtext($1)) AS ok',
    [LOCK_PREFIX + executorId],
  );
  if (taken.rows[0]?.ok !== true) {
    await Promise.all([lease.end(), watch.end()]);
    throw new Error(`another live worker already uses the executor id ${executorId}`);
  }
  const recovered: string[] = [];
  let stopped = false;
  let lost = false;
  const onLost = (error: unknown): void => {
    if (stopped || lost) return;
    lost = true;
    options.onLost?.(error);
  };
  lease.on('error', onLost);
  lease.on('end', () => onLost(new Error(`the lease connection of ${executorId} ended`)));
  let round: Promise<void> = Promise.resolve();
  const tick = (): void => {
    round = takeOverDead(dbos, watch, executorId, recovered).catch(async (error: unknown) => {
      if (stopped) return;
      options.onError?.(error);
      // A broken watch connection is replaced for the next round.
      await watch.end().catch(() => {});
      watch = await connect('watch').catch(() => watch);
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
      await Promise.allSettled([watch.end(), lease.end()]);
    },
  };
}

/** One watch round: takes over the pending workflows of every executor whose lease is free. */
async function takeOverDead(
  dbos: Dbos,
  watch: pg.Client,
  self: string,
  recovered: string[],
): Promise<void> {
  const pending = await dbos.listWorkflows({ status: 'PENDING' });
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
      const orphans = await dbos.listWorkflows({ status: 'PENDING', executorId: executor });
      for (const [queue, ids] of byQueue(orphans)) {
        await dbos.resumeWorkflows(ids, queue === undefined ? {} : { queueName: queue });
        recovered.push(...ids);
      }
    } finally {
      await watch.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  }
}

function byQueue(statuses: readonly WorkflowStatus[]): Map<string | undefined, string[]> {
  const groups = new Map<string | undefined, string[]>();
  for (const status of statuses) {
    const ids = groups.get(status.queueName) ?? [];
    ids.push(status.workflowID);
    groups.set(status.queueName, ids);
  }
  return groups;
}
