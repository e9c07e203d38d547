import type { RunResult } from '@mh/core';
import type fc from 'fast-check';
import type { AgentModel } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import type { PlannedCall } from './scripted-model.js';

/** A prompt's plan: the tool calls of each turn before the answer. */
export type Plan = readonly (readonly PlannedCall[])[];
/** A command of the Agent suite. */
export type AgentCommand = fc.AsyncCommand<AgentModel, AgentWorld>;

/** A plan as a counterexample prints it: `readnote+sendonce,putnote`. */
export const showPlan = (plan: Plan): string =>
  plan.map((turn) => turn.map((call) => call.tool.replace('_', '')).join('+')).join(',') || 'text';

/** How a run ended, for messages. */
export function describe(result: RunResult | undefined): string {
  if (!result) return 'without a result';
  return `${result.status}${result.error ? `: ${result.error.name}: ${result.error.message}` : ''}`;
}
