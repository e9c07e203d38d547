import { type RunResult, SessionConflictError } from '@mh/core';
import fc from 'fast-check';
import { type AgentModel, expectThat, type PromptRecord, promptsOf } from './agent-model.js';
import type { AgentWorld, ConformanceAgent } from './agent-world.js';
import type { PlannedCall } from './scripted-model.js';

type Plan = readonly (readonly PlannedCall[])[];
type AgentCommand = fc.AsyncCommand<AgentModel, AgentWorld>;

const showPlan = (plan: Plan): string =>
  plan.map((turn) => turn.map((call) => call.tool.replace('_', '')).join('+')).join(',') || 'text';

/** Runs a prompt to the end with its planned tool turns: it must complete and be stored once. */
class PromptCommand implements AgentCommand {
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
    model.prompts.push({ label, answered: true });
  }
  toString = (): string => `prompt(${showPlan(this.plan)})`;
}

/**
 * Cancels a prompt while the model streams (its turn `turn`, after some text or none) or while a
 * tool runs; then a new agent's `resume()` must not call the model for the cancelled request.
 */
class CancelCommand implements AgentCommand {
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

/** Stops iterating a prompt's stream after `events` events: that cancels it, and it stays cancelled. */
class AbandonCommand implements AgentCommand {
  readonly plan: Plan;
  readonly events: number;
  constructor(plan: Plan, events: number) {
    this.plan = plan;
    this.events = events;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    world.model.plan(label, this.plan);
    let seen = 0;
    let completed = false;
    for await (const event of world.agent.stream(`${label} please`)) {
      if (event.type === 'run-end') completed = event.result.status === 'completed';
      if (++seen >= this.events) break;
    }
    model.exists = true;
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

/** `reset()`: the conversation goes on from empty on a new branch; the old one is kept. */
class ResetCommand implements AgentCommand {
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
class RewindCommand implements AgentCommand {
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
class ForkCommand implements AgentCommand {
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
class SwitchCommand implements AgentCommand {
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
class ReopenCommand implements AgentCommand {
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

/**
 * A second agent on the same session runs a prompt at the same time as the first. Each run
 * completes or ends with a typed `SessionConflictError`; a completed prompt is stored once with
 * its answer, a refused one at most once.
 */
class RaceCommand implements AgentCommand {
  readonly planA: Plan;
  readonly planB: Plan;
  constructor(planA: Plan, planB: Plan) {
    this.planA = planA;
    this.planB = planB;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const [a, b] = [model.label(), model.label()];
    world.model.plan(a, this.planA);
    world.model.plan(b, this.planB);
    const rival: ConformanceAgent = world.create();
    const results = await Promise.all([world.agent.run(`${a} please`), rival.run(`${b} please`)]);
    model.exists = true;
    for (const result of results) {
      expectThat(
        result.status === 'completed' ||
          (result.status === 'error' && SessionConflictError.isInstance(result.error)),
        () => `a racing run ended ${describe(result)}`,
      );
    }
    const state = await world.store.load(world.sessionId, model.current);
    const stored = promptsOf(state.messages);
    const before = model.prompts.map((record) => record.label);
    expectThat(
      before.every((label, i) => stored[i]?.label === label),
      () => `the race changed earlier prompts: ${JSON.stringify(stored)}`,
    );
    const added = stored.slice(before.length);
    expectThat(
      added.every((record) => record.label === a || record.label === b),
      () => `the race stored ${JSON.stringify(added)}`,
    );
    [a, b].forEach((label, i) => {
      if (results[i]?.status !== 'completed') return;
      expectThat(
        added.some((record) => record.label === label && record.answered),
        () =>
          `${label} completed but is not stored with its answer: stored ${JSON.stringify(
            state.messages.map((m) => `${m.role}:${JSON.stringify(m.content).slice(0, 80)}`),
          )} results ${JSON.stringify(results.map((r) => [r.status, r.error?.message, r.text, r.compactions.length]))}`,
      );
    });
    model.prompts.push(...added);
  }
  toString = (): string => `race(${showPlan(this.planA)} | ${showPlan(this.planB)})`;
}

/**
 * Runs a prompt in a child process that is SIGKILLed right after its `writes`-th store write,
 * then opens the session in a new agent, as the next process would, and resumes. A prompt the
 * child stored is then answered exactly once; the crash never makes a non-idempotent call run
 * twice (the side file), and everything committed before it is intact.
 */
class CrashCommand implements AgentCommand {
  readonly plan: Plan;
  readonly writes: number;
  constructor(plan: Plan, writes: number) {
    this.plan = plan;
    this.writes = writes;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    if (!world.crash) return;
    const label = model.label();
    world.model.plan(label, this.plan);
    await world.crash({
      sessionId: world.sessionId,
      prompt: `${label} please`,
      label,
      plan: this.plan,
      callPrefix: `${world.sessionId}-crash${world.crashes++}`,
      sideFile: world.sideFile,
      writes: this.writes,
      ...(world.contextWindow === undefined ? {} : { contextWindow: world.contextWindow }),
    });
    model.exists = (await world.store.getSession(world.sessionId)) !== undefined;
    world.agent = world.create();
    const resumed = await world.agent.resume();
    expectThat(
      resumed === undefined || resumed.status === 'completed',
      () => `resume() after a crash in ${label} ended ${describe(resumed)}`,
    );
    if (!model.exists) return;
    const stored = promptsOf((await world.store.load(world.sessionId, model.current)).messages);
    const before = model.prompts.map((record) => record.label);
    expectThat(
      before.every((known, i) => stored[i]?.label === known) &&
        stored.slice(before.length).every((record) => record.label === label && record.answered),
      () => `after the crash in ${label} and resume(), the branch stores ${JSON.stringify(stored)}`,
    );
    model.prompts.push(...stored.slice(before.length));
  }
  toString = (): string => `crash(${showPlan(this.plan)} after ${this.writes} writes)`;
}

/**
 * While the first agent's tools run (a slow call, then the plan's calls), a second agent on the
 * session calls `resume()`, as a second process opening it would, and finds the turn in flight.
 * Whichever finishes the turn, no non-idempotent call runs twice and every refusal is typed.
 */
class RaceResumeCommand implements AgentCommand {
  readonly plan: Plan;
  constructor(plan: Plan) {
    this.plan = plan;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    const [first = [], ...rest] = this.plan;
    const plan: Plan = [[{ tool: 'read_note', slow: true }, ...first], ...rest];
    world.model.plan(label, plan);
    const slow = world.tools.nextSlow();
    const running = world.agent.run(`${label} please`);
    const rival = world.create();
    const resumed = await Promise.race([
      slow.then(() => rival.resume()),
      running.then(() => undefined),
    ]);
    const results = [await running, ...(resumed ? [resumed] : [])];
    model.exists = true;
    for (const result of results) {
      expectThat(
        result.status === 'completed' ||
          (result.status === 'error' && SessionConflictError.isInstance(result.error)),
        () => `a run racing resume() ended ${describe(result)}`,
      );
    }
    const stored = promptsOf((await world.store.load(world.sessionId, model.current)).messages);
    const before = model.prompts.map((record) => record.label);
    expectThat(
      before.every((known, i) => stored[i]?.label === known) &&
        stored.slice(before.length).every((record) => record.label === label),
      () => `after racing resume() on ${label} the branch stores ${JSON.stringify(stored)}`,
    );
    model.prompts.push(...stored.slice(before.length));
  }
  toString = (): string => `race-resume(${showPlan(this.plan)})`;
}

function describe(result: RunResult | undefined): string {
  if (!result) return 'without a result';
  return `${result.status}${result.error ? `: ${result.error.name}: ${result.error.message}` : ''}`;
}

function withHangingCall(plan: Plan, turn: number): Plan {
  const turns = plan.map((calls) => [...calls]);
  while (turns.length <= turn) turns.push([]);
  (turns[turn] as PlannedCall[]).push({ tool: 'read_note', hang: true });
  return turns;
}

const callArb: fc.Arbitrary<PlannedCall> = fc.record({
  tool: fc.constantFrom('read_note', 'put_note', 'send_once'),
});
const planArb: fc.Arbitrary<Plan> = fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), {
  maxLength: 3,
});

/** The command arbitraries of the Agent suite. */
export function agentCommands(options: {
  readonly contextWindow: number;
  readonly crash: boolean;
}): fc.Arbitrary<AgentCommand>[] {
  const crash = fc
    .tuple(planArb, fc.nat(12))
    .map(([plan, writes]) => new CrashCommand(plan, writes));
  return [
    ...(options.crash ? [crash, crash] : []),
    planArb.map((plan) => new PromptCommand(plan)),
    fc
      .tuple(
        planArb,
        fc.oneof(
          fc.record({
            kind: fc.constant('model' as const),
            turn: fc.nat(3),
            partial: fc.boolean(),
          }),
          fc.record({ kind: fc.constant('tool' as const), turn: fc.nat(3) }),
        ),
      )
      .map(([plan, at]) => new CancelCommand(plan, at)),
    fc
      .tuple(planArb, fc.integer({ min: 1, max: 12 }))
      .map(([plan, n]) => new AbandonCommand(plan, n)),
    fc.constant(new ResetCommand()),
    fc.nat(20).map((pick) => new RewindCommand(pick)),
    fc.constant(new ForkCommand()),
    fc.nat(20).map((pick) => new SwitchCommand(pick)),
    fc
      .option(fc.constant(options.contextWindow), { freq: 2 })
      .map((window) => new ReopenCommand(window ?? undefined)),
    fc.tuple(planArb, planArb).map(([a, b]) => new RaceCommand(a, b)),
    planArb.map((plan) => new RaceResumeCommand(plan)),
  ];
}
