import type { AgentModel } from './agent-model.js';
import { expectThat, type PromptRecord, promptsOf } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import type { AgentCommand } from './command-support.js';

/** `reset()`: the conversation goes on from empty on a new branch; the old one is kept. */
export class ResetCommand implements AgentCommand {
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    await world.agent.reset();
    expectThat(world.agent.history.length === 0, () => 'the history is not empty after reset()');
    if (!model.exists || model.prompts.length === 0) return;
    const name = model.resetName();
    model.branches.set(name, []);
    model.current = name;
  }
  toString = (): string => 'reset';
}

/** Rewinds to the checkpoint `pick` picks (or to empty) on a new branch. */
export class RewindCommand implements AgentCommand {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = (model: AgentModel): boolean => model.exists;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const { store, sessionId } = world;
    const checkpoints = await store.listCheckpoints(sessionId, model.current);
    const index = this.pick % (checkpoints.length + 1);
    const kept = checkpoints.slice(0, index);
    const count = kept.reduce((sum, checkpoint) => sum + checkpoint.messageIds.length, 0);
    const state = await store.load(sessionId, model.current);
    const prefix: PromptRecord[] = promptsOf(state.messages.slice(0, count));
    const labels = model.prompts.map((record) => record.label);
    expectThat(
      prefix.every((record, i) => labels[i] === record.label),
      () =>
        `checkpoint ${index} holds prompts ${JSON.stringify(prefix)}, not a prefix of ${labels}`,
    );
    const name = model.branchName();
    await world.agent.rewind(kept.at(-1)?.id ?? null, name);
    model.branches.set(name, prefix);
    model.current = name;
  }
  toString = (): string => `rewind(${this.pick})`;
}

/** Forks the current branch at its head. */
export class ForkCommand implements AgentCommand {
  check = (model: AgentModel): boolean => model.exists;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const name = model.branchName();
    await world.agent.fork(name);
    model.branches.set(name, [...model.prompts]);
    model.current = name;
  }
  toString = (): string => 'fork';
}

/** Switches to another existing branch. */
export class SwitchCommand implements AgentCommand {
  readonly pick: number;
  constructor(pick: number) {
    this.pick = pick;
  }
  check = (model: AgentModel): boolean => model.exists && model.branches.size > 1;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const names = [...model.branches.keys()];
    const target = names[this.pick % names.length] as string;
    await world.agent.switchBranch(target);
    model.current = target;
  }
  toString = (): string => `switch(${this.pick})`;
}

/** A new agent on the session, as the next process would open it; with a tiny window it compacts. */
export class ReopenCommand implements AgentCommand {
  readonly contextWindow: number | undefined;
  constructor(contextWindow: number | undefined) {
    this.contextWindow = contextWindow;
  }
  check = (): boolean => true;
  async run(_model: AgentModel, world: AgentWorld): Promise<void> {
    world.contextWindow = this.contextWindow;
    world.agent = world.create();
    await world.agent.load();
  }
  toString = (): string =>
    this.contextWindow === undefined ? 'reopen' : `reopen(window ${this.contextWindow})`;
}
