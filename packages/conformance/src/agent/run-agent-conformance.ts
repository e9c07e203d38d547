import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type SessionStore } from '@mh/core';
import fc from 'fast-check';
import { agentCommands } from './agent-commands.js';
import { AgentModel, checkAgentInvariants, type Serializer } from './agent-model.js';
import type { AgentParts, AgentWorld, ConformanceAgent, CrashJob } from './agent-world.js';
import { ScriptedModel } from './scripted-model.js';
import { sideEffectTools } from './side-effect-tools.js';

/** How to run the Agent suite. */
export interface AgentConformanceOptions {
  /** The store the agents persist to; each sequence works on a session of its own. */
  readonly store: SessionStore;
  /** Builds an agent from the suite's parts, e.g. `(parts) => new Agent({ model, ...parts })`. */
  createAgent(parts: AgentParts): ConformanceAgent;
  /** Vendor request builders run on the agent's history after every command (default none). */
  readonly serializers?: readonly Serializer[];
  /**
   * Runs a crash job in a child process that builds the same agent from `ScriptedModel`,
   * `sideEffectTools` and `killAfterWrites(store, job.writes)` on the same storage, runs
   * `job.prompt`, and is killed by its store wrapper; resolves when the child has ended. When
   * given, sequences include crash commands (each costs a process start: give fewer runs).
   */
  crash?(job: CrashJob): Promise<void>;
  /**
   * Opens the same storage again, as a restarted process would. When given, sequences include
   * restarts: the agent is built anew on a store from here (the suite closes each one it got
   * when the next restart or the sequence ends; `store` itself stays open).
   */
  reopen?(): Promise<SessionStore>;
  /** Command sequences to generate (default 100). */
  readonly numRuns?: number;
  /** Longest sequence (default 12). */
  readonly maxCommands?: number;
  /** Stop generating new sequences after this long, in ms (default: no limit). */
  readonly timeLimitMs?: number;
  /** The context window of reopened agents that must compact (default 1000 tokens). */
  readonly contextWindow?: number;
  /** Replays a failure: the seed (and path) a failed run printed. */
  readonly seed?: number;
  readonly path?: string;
}

/** What a passing run of the suite did. */
export interface AgentConformanceReport {
  /** Sequences run to the end with every invariant holding. */
  readonly sequences: number;
  /** Commands run, by kind. */
  readonly commands: Readonly<Record<string, number>>;
  /** Compactions the prompts' runs reported (the tiny-window reopens make them happen). */
  readonly compactions: number;
  /** Wall time of the whole run, ms. */
  readonly durationMs: number;
  /** The seed, so a run can be repeated exactly. */
  readonly seed: number;
}

/**
 * Runs `@mh/sdk`'s Agent (or anything with its session surface) through generated sequences of
 * prompts with read, idempotent-write and non-idempotent tools, cancels at random points,
 * abandoned streams, resets, rewinds, forks, branch switches, reopens with compaction in a tiny
 * window, a second agent racing the first, and interrupts whose resume comes later (after new
 * prompts, branch moves, restarts, and refused decisions: a second one, an unknown call, a stale
 * token), checking after every command against a plain
 * reference model: every prompt is stored exactly once and in order, no committed turn is lost or
 * duplicated, every history and request validates, a recorded cancel is not re-run, no
 * non-idempotent tool runs twice, an approved call runs exactly once and a denied or abandoned
 * one never, and every conflict or refused decision is a typed error. A failure rejects with the
 * shrunk command sequence, its seed and path.
 * @example
 * const store = await openSqliteStore('conformance.db');
 * await runAgentConformance({ store, createAgent: (parts) => new Agent({ model: 'm', ...parts }) });
 */
export async function runAgentConformance(
  options: AgentConformanceOptions,
): Promise<AgentConformanceReport> {
  checkOptions(options);
  const started = Date.now();
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const commands: Record<string, number> = {};
  let sequences = 0;
  let compactions = 0;
  const dir = mkdtempSync(join(tmpdir(), 'mh-conformance-'));
  const window = options.contextWindow ?? 1000;
  const arbitraries = agentCommands({
    contextWindow: window,
    crash: options.crash !== undefined,
    restart: options.reopen !== undefined,
  }).map((arbitrary) =>
    arbitrary.map(
      (command): fc.AsyncCommand<AgentModel, AgentWorld> => ({
        check: (model) => command.check(model),
        run: async (model, world) => {
          const kind = command.toString().replace(/\(.*$/, '');
          commands[kind] = (commands[kind] ?? 0) + 1;
          await command.run(model, world);
          await checkAgentInvariants(model, {
            store: world.store,
            sessionId: world.sessionId,
            agentHistory: world.agent.history,
            agentBranch: world.agent.session?.branch,
            sent: world.tools.sent(),
            serializers: options.serializers ?? [],
          });
        },
        toString: () => command.toString(),
      }),
    ),
  );
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(arbitraries, { maxCommands: options.maxCommands ?? 12 }),
        async (sequence) => {
          const run = sequences++;
          const sessionId = `conformance-${seed >>> 0}-${run}-${Math.random().toString(36).slice(2, 8)}`;
          const model = new ScriptedModel(`call${run}`);
          const sideFile = join(dir, `${sessionId}.sent`);
          const tools = sideEffectTools(sideFile);
          const create = (): ConformanceAgent =>
            options.createAgent({
              provider: model,
              tools: tools.tools,
              session: { store: world.store, id: sessionId },
              ...(world.contextWindow === undefined ? {} : { contextWindow: world.contextWindow }),
            });
          const world: AgentWorld = {
            store: options.store,
            ownsStore: false,
            sessionId,
            model,
            tools,
            agent: undefined as unknown as ConformanceAgent,
            compactions: 0,
            contextWindow: undefined,
            sideFile,
            reopen: options.reopen?.bind(options),
            crash: options.crash?.bind(options),
            crashes: 0,
            create,
          };
          world.agent = create();
          try {
            await fc.asyncModelRun(() => ({ model: new AgentModel(), real: world }), sequence);
          } finally {
            compactions += world.compactions;
            if (world.ownsStore) await world.store.close();
          }
        },
      ),
      {
        numRuns: options.numRuns ?? 100,
        seed,
        ...(options.path === undefined ? {} : { path: options.path }),
        ...(options.timeLimitMs === undefined
          ? {}
          : { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }),
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { sequences, commands, compactions, durationMs: Date.now() - started, seed };
}

function checkOptions(options: AgentConformanceOptions): void {
  if (options === null || typeof options !== 'object')
    throw new ConfigError('options', 'expected an object');
  if (typeof options.store?.commit !== 'function')
    throw new ConfigError('store', 'expected a SessionStore');
  if (typeof options.createAgent !== 'function')
    throw new ConfigError('createAgent', 'expected a function');
  if (options.crash !== undefined && typeof options.crash !== 'function')
    throw new ConfigError('crash', 'expected a function');
  if (options.reopen !== undefined && typeof options.reopen !== 'function')
    throw new ConfigError('reopen', 'expected a function');
  for (const key of ['numRuns', 'maxCommands', 'timeLimitMs', 'contextWindow'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new ConfigError(key, `expected a positive integer, got ${String(value)}`);
  }
}
