import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { ConfigError, type Interrupt, type Message } from '@mh/core';
import {
  DECISIONS_TOPIC,
  DEFAULT_QUEUE,
  type DurableDecision,
  type DurableRun,
  INTERRUPTS_EVENT,
  RESULT_POLL_MS,
  workflowName,
} from './durable-agents.js';
import { type RunRecord, runOfRecord } from './run-record.js';

/**
 * Sends a person's decisions to a parked run, from any process (`DBOSClient.create({
 * systemDatabaseUrl })`): the run wakes on whichever worker holds it, resumes with them, and runs
 * each approved call once. A second send of the same decisions finds nothing waiting: the run
 * publishes the refusal (`REFUSED_EVENT`) and goes on waiting for what still waits.
 */
export async function sendDecisions(
  client: DBOSClient,
  workflowId: string,
  decisions: readonly DurableDecision[],
): Promise<void> {
  if (!Array.isArray(decisions) || decisions.length === 0)
    throw new ConfigError('decisions', 'expected at least one decision');
  decisions.forEach((decision, index) => {
    if (typeof decision?.callId !== 'string')
      throw new ConfigError(`decisions[${index}].callId`, 'expected the id of a waiting call');
  });
  await client.send(workflowId, decisions, DECISIONS_TOPIC);
}

/**
 * The calls a run waits on, once it has parked (waits up to `timeoutSeconds` for it to park);
 * an empty list when it finished without waiting; undefined when it has not got that far.
 */
export async function waitingCalls(
  client: DBOSClient,
  workflowId: string,
  timeoutSeconds = 60,
): Promise<readonly Interrupt[] | undefined> {
  return (
    (await client.getEvent<Interrupt[]>(workflowId, INTERRUPTS_EVENT, timeoutSeconds)) ?? undefined
  );
}

/** Enqueues a run of durable agent `agent` from a process that is not a worker. */
export async function enqueueRun(
  client: DBOSClient,
  run: {
    readonly agent: string;
    readonly prompt: string | Message;
    readonly session: string;
    readonly queue?: string;
    readonly workflowId?: string;
  },
): Promise<DurableRun> {
  if (typeof run.session !== 'string' || run.session === '')
    throw new ConfigError('run.session', 'expected a session id');
  const handle = await client.enqueue(
    {
      workflowName: workflowName(run.agent),
      queueName: run.queue ?? DEFAULT_QUEUE,
      deduplicationID: `session:${run.session}`,
      ...(run.workflowId === undefined ? {} : { workflowID: run.workflowId }),
    },
    { prompt: run.prompt, session: run.session },
  );
  return {
    workflowId: handle.workflowID,
    result: async (options) =>
      runOfRecord(
        (await handle.getResult({
          pollingIntervalMs: options?.pollingIntervalMs ?? RESULT_POLL_MS,
        })) as RunRecord,
      ),
  };
}
