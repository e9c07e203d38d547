import {
  ConfigError,
  type Decision,
  type Interrupt,
  type Message,
  newBoundary,
  type RunResult,
  type SessionStore,
  type StepRunner,
  userMessage,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { type Dbos, dbosSteps } from './dbos-steps.js';
import { type RunRecord, recordRun, runOfRecord } from './run-record.js';

/** A person's decision on a waiting call (core's `Decision`), passed to `agent.resume`. */
export type DurableDecision = Decision;

/** What a workflow needs of an agent: `@mh/sdk`'s `Agent` is one. */
export interface DurableAgent {
  run(prompt: Message): Promise<RunResult>;
  resume(options: { readonly decisions: readonly Decision[] }): Promise<RunResult | undefined>;
}

/** What a factory gets to build the agent of one workflow execution. */
export interface DurableAgentContext {
  /** Give it to the agent (`new Agent({ …, steps })`): it makes every call of the run a step. */
  readonly steps: StepRunner;
  /** The run's session (`new Agent({ …, session })`): the store given to `durableAgents`. */
  readonly session: { readonly store: SessionStore; readonly id: string };
  /**
   * The run's fence (`new Agent({ …, fencing })`): a random boundary drawn once, in a step, so
   * a recovered run fences tool results exactly as the first attempt did.
   */
  readonly fencing: { readonly boundary: string };
}

/**
 * Builds the agent of a run, on whichever worker runs or recovers it: every worker registers the
 * same factories under the same names before `DBOS.launch()`. It must build the same agent each
 * time (same tools, same settings), as a recovered workflow replays the steps the first one took.
 */
export type AgentFactory = (context: DurableAgentContext) => DurableAgent;

/** Options of `durableAgents`. */
export interface DurableAgentsOptions {
  /** The DBOS class, configured (`DBOS.setConfig`) and not yet launched. */
  readonly dbos: Dbos;
  /** The session store every run keeps its conversation in (PostgreSQL, shared by the workers). */
  readonly store: SessionStore;
  /** The agents, by name. A name is part of its workflow's name: keep it stable across deploys. */
  readonly agents: Readonly<Record<string, AgentFactory>>;
  /** How long an interrupted run waits for decisions before it ends interrupted (default 7 days). */
  readonly decisionTimeoutSeconds?: number;
}

/** Options of one run. */
export interface StartOptions {
  /** The session id: the run continues its conversation. One active run per session. */
  readonly session: string;
  /** The DBOS queue to run on (registered with `DBOS.registerQueue`; default `mh-agents`). */
  readonly queue?: string;
  /** The workflow id (default: a new UUID). Starting an id again returns the existing run. */
  readonly workflowId?: string;
}

/** The queue runs go on when none is named. */
export const DEFAULT_QUEUE = 'mh-agents';
/** The topic decisions are sent on (`DBOSClient.send(workflowId, decisions, DECISIONS_TOPIC)`). */
export const DECISIONS_TOPIC = 'mh.decisions';
/** The event an interrupted run publishes its waiting calls under (empty once none wait). */
export const INTERRUPTS_EVENT = 'mh.interrupts';
/** The event a run publishes when decisions it received were refused (`ConfigError`). */
export const REFUSED_EVENT = 'mh.decisions.refused';

/** How often a waiting `result()` looks for the run's end, in ms. */
export const RESULT_POLL_MS = 100;

/** The workflow name of the agent `name`. */
export const workflowName = (name: string): string => `mh.agent.${name}`;

/** What a workflow receives. */
interface RunInput {
  readonly prompt: string | Message;
  readonly session: string;
}

/** A run in flight or finished, from any process that can reach the system database. */
export interface DurableRun {
  readonly workflowId: string;
  /**
   * Waits for the run to end and returns its result (a run that waited too long: `interrupted`),
   * polling the system database every `pollingIntervalMs` (default 100).
   */
  result(options?: { readonly pollingIntervalMs?: number }): Promise<RunResult>;
}

/** The durable agents of a worker: register them before launch, then start runs. */
export interface DurableAgents {
  /** Enqueues a run of agent `name` on `prompt`; any worker listening on the queue runs it. */
  start(name: string, prompt: string | Message, options: StartOptions): Promise<DurableRun>;
  /** A run by its workflow id. */
  retrieve(workflowId: string): DurableRun;
}

/**
 * Registers one DBOS workflow per agent, to call before `DBOS.launch()` on every worker. A run is
 * a workflow: the agent's model calls, tool calls and session store calls are its steps (see
 * `dbosSteps`), so a worker that dies mid-run loses nothing: another worker recovers the workflow,
 * replays the recorded steps without calling the model or the tools again, and goes on from the
 * first step that was not recorded. A non-idempotent tool cut off mid-step is not run again.
 *
 * A run that ends `interrupted` parks on `DBOS.recv` for decisions (`sendDecisions`, from any
 * process), resumes with them and parks again if calls still wait.
 */
export function durableAgents(options: DurableAgentsOptions): DurableAgents {
  checkOptions(options);
  const { dbos, store, agents } = options;
  const timeout = options.decisionTimeoutSeconds ?? 7 * 24 * 3600;
  const workflows = new Map<string, (input: RunInput) => Promise<RunRecord>>();
  for (const [name, factory] of Object.entries(agents)) {
    const workflow = async (input: RunInput): Promise<RunRecord> => {
      const workflowId = dbos.workflowID;
      if (workflowId === undefined) throw new ConfigError('workflow', 'not running in a workflow');
      const steps = dbosSteps(dbos, workflowId);
      const boundary = await dbos.runStep(async () => newBoundary(), { name: 'fence' });
      const agent = factory({
        steps,
        session: { store, id: input.session },
        fencing: { boundary },
      });
      const prompt =
        typeof input.prompt === 'string'
          ? userMessage(input.prompt, steps.newId('msg'))
          : input.prompt;
      let result = await agent.run(prompt);
      while (result.status === 'interrupted') {
        await dbos.setEvent(INTERRUPTS_EVENT, plainInterrupts(result.interrupts));
        const decisions = await dbos.recv<DurableDecision[]>(DECISIONS_TOPIC, timeout);
        if (decisions === null) break;
        try {
          result = (await agent.resume({ decisions })) ?? result;
        } catch (error) {
          if (!ConfigError.isInstance(error)) throw error;
          await dbos.setEvent(REFUSED_EVENT, { field: error.field, message: error.message });
          // Another process may have finished the turn on the session (`agent.resume` there):
          // then nothing waits any more, and the run ends instead of waiting on.
          const now = await agent.resume({ decisions: [] });
          if (now === undefined) break;
          result = now;
        }
      }
      if (result.status !== 'interrupted') await dbos.setEvent(INTERRUPTS_EVENT, []);
      return recordRun(result);
    };
    workflows.set(name, dbos.registerWorkflow(workflow, { name: workflowName(name) }));
  }
  const handle = (workflowId: string): DurableRun => ({
    workflowId,
    result: async (options) =>
      runOfRecord(
        await dbos
          .retrieveWorkflow<RunRecord>(workflowId)
          .getResult({ pollingIntervalMs: options?.pollingIntervalMs ?? RESULT_POLL_MS }),
      ),
  });
  return {
    async start(name, prompt, startOptions) {
      const workflow = workflows.get(name);
      if (workflow === undefined)
        throw new ConfigError('name', `no durable agent named ${JSON.stringify(name)}`);
      checkStart(prompt, startOptions);
      const started = await dbos.startWorkflow(workflow, {
        ...(startOptions.workflowId === undefined ? {} : { workflowID: startOptions.workflowId }),
        queueName: startOptions.queue ?? DEFAULT_QUEUE,
        // One active run per session: DBOS refuses a second one on the queue while it runs.
        enqueueOptions: { deduplicationID: `session:${startOptions.session}` },
      })({ prompt, session: startOptions.session });
      return handle(started.workflowID);
    },
    retrieve: (workflowId) => handle(workflowId),
  };
}

/** Interrupts as plain JSON for an event. */
function plainInterrupts(interrupts: readonly Interrupt[] | undefined): unknown {
  return JSON.parse(JSON.stringify(interrupts ?? []));
}

function checkOptions(options: DurableAgentsOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'expected an object');
  assertOptions(options, ['dbos', 'store', 'agents', 'decisionTimeoutSeconds'], '');
  const { dbos, store, agents, decisionTimeoutSeconds } = options;
  if (typeof dbos?.registerWorkflow !== 'function' || typeof dbos.runStep !== 'function')
    throw new ConfigError('dbos', "expected the DBOS class of '@dbos-inc/dbos-sdk'");
  if (typeof store?.commit !== 'function')
    throw new ConfigError('store', 'expected a SessionStore (openPostgresStore)');
  if (typeof agents !== 'object' || agents === null || Object.keys(agents).length === 0)
    throw new ConfigError('agents', 'expected at least one agent factory, by name');
  for (const [name, factory] of Object.entries(agents)) {
    if (!/^[A-Za-z0-9][\w.-]{0,63}$/.test(name))
      throw new ConfigError(`agents.${name}`, 'expected a name of letters, digits, . _ or -');
    if (typeof factory !== 'function')
      throw new ConfigError(`agents.${name}`, 'expected a function ({ steps, session }) => agent');
  }
  if (
    decisionTimeoutSeconds !== undefined &&
    (typeof decisionTimeoutSeconds !== 'number' || !(decisionTimeoutSeconds > 0))
  )
    throw new ConfigError('decisionTimeoutSeconds', 'expected a number of seconds > 0');
}

function checkStart(prompt: unknown, options: StartOptions): void {
  if (
    typeof prompt === 'string'
      ? prompt.trim() === ''
      : typeof prompt !== 'object' || prompt === null
  )
    throw new ConfigError('prompt', 'expected a non-empty string or a user Message');
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('options', 'expected { session }');
  assertOptions(options, ['session', 'queue', 'workflowId'], 'options');
  if (typeof options.session !== 'string' || options.session === '')
    throw new ConfigError('options.session', 'expected a session id');
  if (options.queue !== undefined && (typeof options.queue !== 'string' || options.queue === ''))
    throw new ConfigError('options.queue', 'expected a queue name');
  if (
    options.workflowId !== undefined &&
    (typeof options.workflowId !== 'string' || options.workflowId === '')
  )
    throw new ConfigError('options.workflowId', 'expected a workflow id');
}
