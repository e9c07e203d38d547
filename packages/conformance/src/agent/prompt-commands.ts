import type { AgentModel } from './agent-model.js';
import { expectThat, promptsOf } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import { type AgentCommand, describe, type Plan, showPlan } from './command-support.js';
import { expectMovedOn, stillWaits } from './interrupt-history.js';
import type { PlannedCall } from './scripted-model.js';

/**
 * Runs a prompt to the end with its planned tool turns: it must complete and be stored once. On
 * a branch whose turn waits for a decision, the waiting call is first answered as not run.
 */
export class PromptCommand implements AgentCommand {
  readonly plan: Plan;
  constructor(plan: Plan) {
    this.plan = plan;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    world.model.plan(label, this.plan);
    const result = await world.agent.run(`${label} please`);
    world.compactions += result.compactions.length;
    expectThat(result.status === 'completed', () => `${label} ended ${describe(result)}`);
    model.exists = true;
    await expectMovedOn(model, world, model.current);
    model.prompts.push({ label, answered: true });
  }
  toString = (): string => `prompt(${showPlan(this.plan)})`;
}

/**
 * Cancels a prompt while the model streams (its turn `turn`, after some text or none) or while a
 * tool runs; then a new agent's `resume()` must not call the model for the cancelled request.
 */
export class CancelCommand implements AgentCommand {
  readonly plan: Plan;
  readonly at:
    | { readonly kind: 'model'; readonly turn: number; readonly partial: boolean }
    | {
        readonly kind: 'tool';
        readonly turn: number;
      };
  constructor(
    plan: Plan,
    at:
      | { readonly kind: 'model'; readonly turn: number; readonly partial: boolean }
      | {
          readonly kind: 'tool';
          readonly turn: number;
        },
  ) {
    this.plan = plan;
    this.at = at;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    const at = this.at;
    const plan =
      at.kind === 'tool' ? withHangingCall(this.plan, at.turn % (this.plan.length + 1)) : this.plan;
    world.model.plan(label, plan);
    const reached =
      at.kind === 'model'
        ? world.model.hangAt(at.turn % (plan.length + 1), at.partial)
        : world.tools.nextHang();
    const controller = new AbortController();
    const running = world.agent.run(`${label} please`, { signal: controller.signal });
    const first = await Promise.race([reached.then(() => 'hung' as const), running]);
    controller.abort();
    const result = await running;
    world.model.clearHang();
    model.exists = true;
    await expectMovedOn(model, world, model.current);
    const hung = first === 'hung';
    expectThat(
      result.status === (hung ? 'cancelled' : 'completed'),
      () => `${label} ended ${describe(result)}`,
    );
    model.prompts.push({ label, answered: !hung });
    await expectNothingToResume(world, label);
  }
  toString = (): string =>
    `cancel(${showPlan(this.plan)} at ${this.at.kind} ${this.at.turn}${
      this.at.kind === 'model' && this.at.partial ? ' after text' : ''
    })`;
}

/**
 * Stops iterating a prompt's stream after `events` events: that cancels it, and it stays
 * cancelled. On a branch whose turn waits, stopping before the prompt is kept leaves the call
 * waiting; after, the call was answered as not run with the prompt.
 */
export class AbandonCommand implements AgentCommand {
  readonly plan: Plan;
  readonly events: number;
  constructor(plan: Plan, events: number) {
    this.plan = plan;
    this.events = events;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const waiting = model.waiting.get(model.current);
    const label = model.label();
    world.model.plan(label, this.plan);
    let seen = 0;
    let completed = false;
    for await (const event of world.agent.stream(`${label} please`)) {
      if (event.type === 'run-end') completed = event.result.status === 'completed';
      if (++seen >= this.events) break;
    }
    model.exists = true;
    if (waiting && (await stillWaits(world, model.current, waiting.callId))) {
      // Abandoned before the prompt moved on: none of it is kept, and the call still waits.
      const kept = promptsOf((await world.store.load(world.sessionId, model.current)).messages);
      expectThat(
        !kept.some((record) => record.label === label),
        () => `${label} is stored, yet the call it moved on from still waits`,
      );
      return;
    }
    await expectMovedOn(model, world, model.current);
    // The answer may be committed before the consumer reads `run-end`: the store says which.
    const stored = promptsOf((await world.store.load(world.sessionId, model.current)).messages);
    const answered = stored.find((record) => record.label === label)?.answered === true;
    expectThat(answered || !completed, () => `${label} completed but its answer is not stored`);
    model.prompts.push({ label, answered });
    await expectNothingToResume(world, label);
  }
  toString = (): string => `abandon(${showPlan(this.plan)} after ${this.events} events)`;
}

/** A new agent on the session finds nothing to answer: a cancel is not paid for again. */
async function expectNothingToResume(world: AgentWorld, label: string): Promise<void> {
  const calls = world.model.calls;
  const fresh = world.create();
  const resumed = await fresh.resume();
  expectThat(
    world.model.calls === calls,
    () => `resume() after cancelling ${label} called the model (${describe(resumed)})`,
  );
  world.agent = fresh;
}

function withHangingCall(plan: Plan, turn: number): Plan {
  const turns = plan.map((calls) => [...calls]);
  while (turns.length <= turn) turns.push([]);
  (turns[turn] as PlannedCall[]).push({ tool: 'read_note', hang: true });
  return turns;
}
