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
  readonly onError?: (error: unknown) => void;
}): Promise<Liveness> {
  const { dbos, executorId, intervalMs } = options;
  const lease = new pg.Client({ connectionString: options.systemDatabaseUrl });
  const watch = new pg.Client({ connectionString: options.systemDatabaseUrl });
  await lease.connect();
  await watch.connect();
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
  let round: Promise<void> = Promise.resolve();
  const tick = (): void => {
    round = takeOverDead(dbos, watch, executorId, recovered).catch((error: unknown) => {
      if (!stopped) options.onError?.(error);
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
