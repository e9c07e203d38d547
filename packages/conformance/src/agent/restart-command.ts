import type { AgentModel } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import type { AgentCommand } from './command-support.js';

/**
 * A process restart: the store is opened again (`AgentConformanceOptions.reopen`) and a new agent
 * built on it, which knows nothing but what the store holds: calls waiting for a decision must
 * still wait, and be decided there.
 */
export class RestartCommand implements AgentCommand {
  check = (): boolean => true;
  async run(_model: AgentModel, world: AgentWorld): Promise<void> {
    if (!world.reopen) return;
    const reopened = await world.reopen();
    const previous = world.store;
    const owned = world.ownsStore;
    world.store = reopened;
    world.ownsStore = true;
    world.agent = world.create();
    // Only a store the suite opened is closed: the caller's own stays open for other sequences.
    if (owned) await previous.close();
    await world.agent.load();
  }
  toString = (): string => 'restart';
}
