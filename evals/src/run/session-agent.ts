import type { PricingTable, Provider, Tracer } from '@mh/core';
import { Agent, calculatorTool, ToolRegistry, workspaceTools } from '@mh/sdk';
import type { Task } from '../tasks/task.js';

/** Most model calls a session's run may make before the turn guard stops it. */
export const MAX_TURNS = 30;

/** How every session's agent is built. */
export interface AgentSettings {
  /** The generated workspace on disk. */
  readonly workspaceRoot: string;
  /** The provider of this session (the oracle, or the real model shared by all sessions). */
  readonly provider: Provider;
  /** Model id sent to the provider and used for prices and the context window. */
  readonly model: string;
  /** The system prompt. */
  readonly system: string;
  /** Prices of the model (`--price-in`, `--price-out` over the model table). */
  readonly pricing?: PricingTable;
  /** Fencing of tool results, the harness's prompt-injection defence (the Agent's `fencing`). */
  readonly fencing: boolean;
  /** Compaction; context tasks use their small window, the others the model's own. */
  readonly compaction: boolean;
  /** Receives the session's spans. */
  readonly tracer?: Tracer;
  /** Wall-clock limit of each run, ms. */
  readonly timeoutMs?: number;
}

/** The read-only tools every session gets: the workspace tools and the calculator. */
export function suiteTools(workspaceRoot: string): ToolRegistry {
  return new ToolRegistry([calculatorTool(), ...workspaceTools({ root: workspaceRoot })]);
}

/**
 * A fresh `Agent` for one session of `task`: the real Agent of `@mh/sdk` with the real workspace
 * tools on the generated files. A context task gets its small window (so it must compact) unless
 * compaction is off; other tasks get the agent's default (the model's window, when known).
 */
export function sessionAgent(task: Task, settings: AgentSettings): Agent {
  const compaction = !settings.compaction
    ? (false as const)
    : task.compaction
      ? {
          contextWindow: task.compaction.contextWindow,
          ...(task.compaction.keepRecentTokens === undefined
            ? {}
            : { keepRecentTokens: task.compaction.keepRecentTokens }),
        }
      : undefined;
  return new Agent({
    provider: settings.provider,
    model: settings.model,
    system: settings.system,
    tools: suiteTools(settings.workspaceRoot),
    limits: { maxTurns: MAX_TURNS, timeoutMs: settings.timeoutMs },
    ...(settings.pricing ? { pricing: settings.pricing } : {}),
    ...(settings.tracer ? { tracer: settings.tracer } : {}),
    fencing: settings.fencing,
    ...(compaction === undefined ? {} : { compaction }),
  });
}
