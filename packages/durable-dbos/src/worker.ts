import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import { ConfigError } from '@mh/core';
import type { Dbos } from './dbos-steps.js';
import { DEFAULT_QUEUE } from './durable-agents.js';
import { takeLease, type Watch, watchDeadWorkers } from './liveness.js';

/** A queue's limits, as `DBOS.registerQueue` takes them. */
export type QueueLimits = NonNullable<Parameters<Dbos['registerQueue']>[1]>;

/** Options of `launchWorker`. */
export interface WorkerOptions {
  /** The DBOS class, with the durable agents already registered (`durableAgents`). */
  readonly dbos: Dbos;
  /**
   * DBOS's configuration: `name` and `systemDatabaseUrl` at least. Pin `applicationVersion`: a
   * worker recovers only workflows of its own version (see the README). `executorID` defaults to
   * a new unique id: each worker needs its own, as that is how a dead one is told apart.
   */
  readonly config: DBOSConfig & { readonly systemDatabaseUrl: string };
  /** The queues to register, with their limits (the default queue `mh-agents` is added). */
  readonly queues?: Readonly<Record<string, QueueLimits>>;
  /** How often to look for dead workers' runs, in ms (default 2000). */
  readonly recoveryIntervalMs?: number;
  /** Told of a failed watch round (the next round tries again). */
  readonly onError?: (error: unknown) => void;
}

/** A launched worker. */
export interface Worker {
  readonly executorId: string;
  /** Workflows this worker took over from dead workers. */
  readonly recovered: readonly string[];
  /**
   * True once its lease's connection broke: DBOS is then shut down, as other workers may take
   * its runs over (a worker cannot tell a lost connection from its own death as others see it).
   */
  readonly leaseLost: boolean;
  /** Stops watching, releases the lease and shuts DBOS down (running workflows are left to recovery). */
  stop(): Promise<void>;
}

/**
 * Launches DBOS as a worker: configures it with a unique executor id, launches it (recovering
 * this executor's own pending workflows), registers the queues, takes this worker's liveness lease
 * and starts watching for dead workers (`startLiveness`).
 */
export async function launchWorker(options: WorkerOptions): Promise<Worker> {
  const { dbos, config } = options;
  if (typeof config?.systemDatabaseUrl !== 'string' || config.systemDatabaseUrl === '')
    throw new ConfigError('config.systemDatabaseUrl', 'expected a PostgreSQL connection string');
  if (typeof config.name !== 'string' || config.name === '')
    throw new ConfigError('config.name', 'expected the application name');
  const interval = options.recoveryIntervalMs ?? 2000;
  if (!(typeof interval === 'number' && interval >= 50))
    throw new ConfigError('recoveryIntervalMs', 'expected a number of milliseconds >= 50');
  const executorId =
    config.executorID ?? `mh-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  dbos.setConfig({ ...config, executorID: executorId });
  let lostLease: Promise<void> | undefined;
  // The lease first: no workflow runs under this executor id before it holds one.
  const lease = await takeLease({
    systemDatabaseUrl: config.systemDatabaseUrl,
    executorId,
    checkMs: interval,
    // Others may now take this worker's runs over: it must stop running them.
    onLost: (error) => {
      const cause = error instanceof Error ? error.message : String(error);
      options.onError?.(
        new Error(`lost the lease of executor ${executorId} (${cause}): shutting DBOS down`),
      );
      lostLease = dbos.shutdown();
    },
  });
  let watch: Watch;
  try {
    await dbos.launch();
    for (const [name, limits] of Object.entries({ [DEFAULT_QUEUE]: {}, ...options.queues }))
      await dbos.registerQueue(name, limits);
    watch = await watchDeadWorkers({
      dbos,
      systemDatabaseUrl: config.systemDatabaseUrl,
      executorId,
      intervalMs: interval,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  } catch (error) {
    await dbos.shutdown().catch(() => {});
    await lease.release();
    throw error;
  }
  return {
    executorId,
    recovered: watch.recovered,
    get leaseLost() {
      return lostLease !== undefined;
    },
    async stop() {
      await watch.stop();
      if (lostLease) await lostLease;
      else await dbos.shutdown();
      await lease.release();
    },
  };
}
