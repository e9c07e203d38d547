/**
 * `@mh/durable-dbos`: agent runs as DBOS workflows over PostgreSQL. Register the agents on every
 * worker (`durableAgents`), launch the worker (`launchWorker`), start runs from a worker or
 * enqueue them from any process (`enqueueRun`), and wake a parked run with a person's decisions
 * (`sendDecisions`).
 */
export { enqueueRun, sendDecisions, waitingCalls } from './client.js';
export { type Dbos, dbosSteps } from './dbos-steps.js';
export {
  type AgentFactory,
  DECISIONS_TOPIC,
  DEFAULT_QUEUE,
  type DurableAgent,
  type DurableAgentContext,
  type DurableAgents,
  type DurableAgentsOptions,
  type DurableDecision,
  type DurableRun,
  durableAgents,
  INTERRUPTS_EVENT,
  REFUSED_EVENT,
  type StartOptions,
  workflowName,
} from './durable-agents.js';
export {
  type Lease,
  type Liveness,
  startLiveness,
  takeLease,
  type Watch,
  watchDeadWorkers,
} from './liveness.js';
export { type RunRecord, recordRun, runOfRecord } from './run-record.js';
export { launchWorker, type QueueLimits, type Worker, type WorkerOptions } from './worker.js';
