import { type RunResult, SessionConflictError } from '@mh/core';
import type { AgentModel } from './agent-model.js';
import { expectThat, type PromptRecord, promptsOf } from './agent-model.js';
import type { AgentWorld, ConformanceAgent } from './agent-world.js';
import { type AgentCommand, describe, type Plan, showPlan } from './command-support.js';
import { expectMovedOn, stillWaits } from './interrupt-history.js';

/**
 * A second agent on the same session runs a prompt at the same time as the first. Each run
 * completes or ends with a typed `SessionConflictError`; a completed prompt is stored once with
 * its answer, a refused one at most once.
 */
export class RaceCommand implements AgentCommand {
  readonly planA: Plan;
  readonly planB: Plan;
  constructor(planA: Plan, planB: Plan) {
    this.planA = planA;
    this.planB = planB;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const waiting = model.waiting.get(model.current);
    const [a, b] = [model.label(), model.label()];
    world.model.plan(a, this.planA);
    world.model.plan(b, this.planB);
    const rival: ConformanceAgent = world.create();
    const results = await Promise.all([world.agent.run(`${a} please`), rival.run(`${b} please`)]);
    model.exists = true;
    expectCompletedOrConflict(results, 'a racing run');
    // Both new prompts would answer a waiting call as not run: once, by the one that is kept.
    if (waiting && !(await stillWaits(world, model.current, waiting.callId)))
      await expectMovedOn(model, world, model.current);
    const added = await storedAfter(
      model,
      world,
      (record) => record.label === a || record.label === b,
      `racing ${a} and ${b}`,
    );
    [a, b].forEach((label, i) => {
      if (results[i]?.status !== 'completed') return;
      expectThat(
        added.some((record) => record.label === label && record.answered),
        () => `${label} completed but is not stored with its answer`,
      );
    });
    model.prompts.push(...added);
    // When both completed, the later one moved the head under the other: by design that agent's
    // next write is a typed conflict (then it reloads). The sequence goes on as a new process.
    world.agent = world.create();
    await world.agent.load();
  }
  toString = (): string => `race(${showPlan(this.planA)} | ${showPlan(this.planB)})`;
}

/**
 * Runs a prompt in a child process that is SIGKILLed right after its `writes`-th store write,
 * then opens the session in a new agent, as the next process would, and resumes. A prompt the
 * child stored is then answered exactly once; the crash never makes a non-idempotent call run
 * twice (the side file), and everything committed before it is intact. On a branch whose turn
 * waits for a decision, the call either still waits (killed before the prompt moved on) or was
 * answered as not run together with the stored prompt.
 */
export class CrashCommand implements AgentCommand {
  readonly plan: Plan;
  readonly writes: number;
  constructor(plan: Plan, writes: number) {
    this.plan = plan;
    this.writes = writes;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    if (!world.crash) return;
    const waiting = model.waiting.get(model.current);
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
    if (waiting && (await stillWaits(world, model.current, waiting.callId))) {
      // Killed before the new prompt moved on: the call still waits, and nothing else changed.
      const calls = world.model.calls;
      const again = await world.agent.resume();
      expectThat(
        again?.status === 'interrupted' &&
          again.interrupts?.length === 1 &&
          again.interrupts[0]?.callId === waiting.callId &&
          world.model.calls === calls,
        () => `resume() after a crash in ${label} left waiting ended ${describe(again)}`,
      );
      await storedAfter(model, world, () => false, `the crash in ${label} before it moved on`);
      return;
    }
    await expectMovedOn(model, world, model.current);
    const resumed = await world.agent.resume();
    expectThat(
      resumed === undefined || resumed.status === 'completed',
      () => `resume() after a crash in ${label} ended ${describe(resumed)}`,
    );
    if (!model.exists) return;
    const added = await storedAfter(
      model,
      world,
      (record) => record.label === label && record.answered,
      `the crash in ${label} and resume()`,
    );
    model.prompts.push(...added);
  }
  toString = (): string => `crash(${showPlan(this.plan)} after ${this.writes} writes)`;
}

/**
 * While the first agent's tools run (a slow call, then the plan's calls), a second agent on the
 * session calls `resume()`, as a second process opening it would, and finds the turn in flight.
 * Whichever finishes the turn, no non-idempotent call runs twice and every refusal is typed.
 */
export class RaceResumeCommand implements AgentCommand {
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
    // The rival resumes once the first agent's slow call runs; both are awaited to the end.
    let rivalRun: Promise<RunResult | undefined> | undefined;
    const rivalStarted = slow.then(() => {
      rivalRun = rival.resume();
      return rivalRun;
    });
    await Promise.race([rivalStarted, running]);
    const ended = await running;
    const resumed = rivalRun === undefined ? undefined : await rivalRun;
    const results = [ended, ...(resumed ? [resumed] : [])];
    model.exists = true;
    expectCompletedOrConflict(results, 'a run racing resume()');
    // The prompt answered a waiting call as not run before its tools ran, so before the rival.
    await expectMovedOn(model, world, model.current);
    const added = await storedAfter(
      model,
      world,
      (record) => record.label === label,
      `racing resume() on ${label}`,
    );
    model.prompts.push(...added);
  }
  toString = (): string => `race-resume(${showPlan(this.plan)})`;
}

/**
 * The prompts a command added to the current branch, after checking that the ones the model
 * knew are still there, in order, and that every new one is allowed (`what` names the command).
 */
async function storedAfter(
  model: AgentModel,
  world: AgentWorld,
  allowed: (record: PromptRecord) => boolean,
  what: string,
): Promise<PromptRecord[]> {
  const stored = promptsOf((await world.store.load(world.sessionId, model.current)).messages);
  const before = model.prompts.map((record) => record.label);
  const added = stored.slice(before.length);
  // A branch left awaiting an answer (a rewind to a prompt) is answered by a resume() here:
  // its last known prompt may gain its answer, never another.
  const last = before.length - 1;
  if (last >= 0 && model.prompts[last]?.answered === false && stored[last]?.answered === true)
    model.prompts[last] = { label: before[last] as string, answered: true };
  expectThat(
    before.every((label, i) => stored[i]?.label === label) && added.every(allowed),
    () => `after ${what} the branch stores ${JSON.stringify(stored)}`,
  );
  return added;
}

/** Each racing run completes or ends with a typed conflict. */
function expectCompletedOrConflict(results: readonly RunResult[], what: string): void {
  for (const result of results) {
    expectThat(
      result.status === 'completed' ||
        (result.status === 'error' && SessionConflictError.isInstance(result.error)),
      () => `${what} ended ${describe(result)}`,
    );
  }
}

/**
 * Decides the current branch's waiting call in a child process that is SIGKILLed right after its
 * `writes`-th store write, then resumes in a new agent. Killed before the decision took, the call
 * still waits and never ran; after, it ran at most once (exactly as often as its side file says,
 * and never again: a started call is reported as interrupted), a denied one never, and the prompt
 * ends with its one answer.
 */
export class CrashDecisionCommand implements AgentCommand {
  readonly writes: number;
  readonly approve: boolean;
  constructor(writes: number, approve: boolean) {
    this.writes = writes;
    this.approve = approve;
  }
  check = (model: AgentModel): boolean => model.waiting.has(model.current);
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const branch = model.current;
    const waiting = model.waiting.get(branch);
    if (!world.crash || !waiting) return;
    const { callId, label } = waiting;
    await world.crash({
      sessionId: world.sessionId,
      prompt: `${label} please`,
      label,
      plan: waiting.after,
      callPrefix: `${world.sessionId}-crash${world.crashes++}`,
      sideFile: world.sideFile,
      writes: this.writes,
      decisions: [
        this.approve ? { callId, approve: true } : { callId, approve: false, message: 'no' },
      ],
      ...(world.contextWindow === undefined ? {} : { contextWindow: world.contextWindow }),
    });
    world.agent = world.create();
    const ran = world.tools.sent().filter((id) => id === callId).length;
    expectThat(
      ran <= (this.approve ? 1 : 0),
      () =>
        `${callId} ran ${ran} time(s) in a child that ${this.approve ? 'approved' : 'denied'} it`,
    );
    if (await stillWaits(world, branch, callId)) {
      expectThat(ran === 0, () => `${callId} still waits, yet ran`);
      return;
    }
    model.waiting.delete(branch);
    model.decided.push(callId);
    model.runs.set(callId, ran);
    const resumed = await world.agent.resume();
    expectThat(
      resumed === undefined || resumed.status === 'completed',
      () => `resume() after a crash deciding ${callId} ended ${describe(resumed)}`,
    );
    await storedAfter(model, world, () => false, `the crash deciding ${callId} and resume()`);
    const index = model.prompts.findIndex((record) => record.label === label);
    expectThat(
      model.prompts[index]?.answered === true,
      () => `${label} has no answer after its decision and resume()`,
    );
  }
  toString = (): string =>
    `crash-decide(${this.approve ? 'approve' : 'deny'} after ${this.writes} writes)`;
}
