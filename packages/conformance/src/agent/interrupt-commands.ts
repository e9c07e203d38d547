import { ConfigError, type RunResult, SessionConflictError } from '@mh/core';
import type { AgentModel } from './agent-model.js';
import { expectThat } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import { type AgentCommand, describe, type Plan, showPlan } from './command-support.js';
import { DENIED, expectMovedOn, expectResult } from './interrupt-history.js';

/**
 * A prompt whose first turn calls `approved_send`, a non-idempotent tool that needs approval
 * (after the planned calls of that turn, if any): the run must end `interrupted` with that one
 * call waiting and its side effect not done; the branch's journal holds the call, unstarted.
 * The decision comes later (`ResumeCommand`), after whatever else the sequence does. On a branch
 * that already waited, the new prompt first answers the old call as not run.
 */
export class InterruptCommand implements AgentCommand {
  readonly plan: Plan;
  constructor(plan: Plan) {
    this.plan = plan;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    const [first = [], ...rest] = this.plan;
    world.model.plan(label, [[...first, { tool: 'approved_send' }], ...rest]);
    const result = await world.agent.run(`${label} please`);
    world.compactions += result.compactions.length;
    model.exists = true;
    await expectMovedOn(model, world, model.current);
    expectThat(result.status === 'interrupted', () => `${label} ended ${describe(result)}`);
    const waiting = result.interrupts ?? [];
    const interrupt = waiting[0];
    expectThat(
      waiting.length === 1 && interrupt?.tool === 'approved_send',
      () => `${label} interrupted on ${JSON.stringify(waiting)}, not on its one approved_send`,
    );
    model.prompts.push({ label, answered: false });
    model.waiting.set(model.current, {
      label,
      callId: interrupt.callId,
      input: interrupt.input,
      token: interrupt.token,
      after: rest,
    });
    if (interrupt.token !== undefined) model.tokens.push(interrupt.token);
    model.runs.set(interrupt.callId, 0);
  }
  toString = (): string => `interrupt(${showPlan(this.plan)})`;
}

/** What a resume decides on the waiting call: approve it, deny it, or give no decision. */
export type ResumeChoice = 'approve' | 'deny' | 'undecided';

/**
 * Resumes the current branch's waiting call with the agent at hand (perhaps a new one on a store
 * opened again). Approved, the call runs exactly once and the prompt gets its one answer; denied,
 * it never runs and the model reads the denial; undecided, the run stays `interrupted` on the same
 * call, no model is called and nothing runs.
 */
export class ResumeCommand implements AgentCommand {
  readonly choice: ResumeChoice;
  constructor(choice: ResumeChoice) {
    this.choice = choice;
  }
  check = (model: AgentModel): boolean => model.waiting.has(model.current);
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const branch = model.current;
    const waiting = model.waiting.get(branch);
    if (!waiting) return;
    const { callId, label } = waiting;
    const token = waiting.token === undefined ? {} : { token: waiting.token };
    const calls = world.model.calls;
    if (this.choice === 'undecided') {
      const result = await world.agent.resume();
      const again = result?.interrupts ?? [];
      expectThat(
        result?.status === 'interrupted' && again.length === 1 && again[0]?.callId === callId,
        () =>
          `resume() without a decision on ${callId} ended ${describe(result)}: ${JSON.stringify(again)}`,
      );
      expectThat(world.model.calls === calls, () => `resume() without a decision called the model`);
      const fresh = again[0]?.token;
      if (fresh !== undefined && fresh !== waiting.token) model.tokens.push(fresh);
      model.waiting.set(branch, { ...waiting, token: fresh });
      return;
    }
    const approve = this.choice === 'approve';
    const resumed: RunResult | undefined = await world.agent.resume({
      decisions: [
        approve
          ? { callId, approve: true, ...token }
          : { callId, approve: false, message: 'no', ...token },
      ],
    });
    expectThat(
      resumed?.status === 'completed',
      () => `resume of ${label} (${this.choice}) ended ${describe(resumed)}`,
    );
    world.compactions += resumed?.compactions.length ?? 0;
    model.waiting.delete(branch);
    model.decided.push(callId);
    model.runs.set(callId, approve ? 1 : 0);
    const index = model.prompts.findIndex((record) => record.label === label);
    expectThat(index >= 0, () => `${label} is not a prompt of branch ${branch}`);
    model.prompts[index] = { label, answered: true };
    await expectResult(
      world,
      branch,
      callId,
      approve
        ? { pattern: new RegExp(`\\bapproved_send ${label} done\\.`), isError: false }
        : { pattern: DENIED, isError: true },
    );
  }
  toString = (): string => `resume(${this.choice})`;
}

/**
 * Two agents on the session approve the waiting call at once, as two processes given the same
 * decision would. The call runs exactly once and the prompt gets one answer; the other resume
 * completes too only if it found the turn already finished, else it ends with a typed
 * `SessionConflictError` or is refused with a `ConfigError` naming the decision's `callId`.
 */
export class RaceDecisionCommand implements AgentCommand {
  check = (model: AgentModel): boolean => model.waiting.has(model.current);
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const branch = model.current;
    const waiting = model.waiting.get(branch);
    if (!waiting) return;
    const { callId, label } = waiting;
    const decision = {
      callId,
      approve: true as const,
      ...(waiting.token === undefined ? {} : { token: waiting.token }),
    };
    const rival = world.create();
    const outcomes = await Promise.allSettled([
      world.agent.resume({ decisions: [decision] }),
      rival.resume({ decisions: [decision] }),
    ]);
    const shown = (): string =>
      JSON.stringify(
        outcomes.map((outcome) =>
          outcome.status === 'fulfilled'
            ? describe(outcome.value)
            : `${(outcome.reason as Error)?.name}: ${(outcome.reason as Error)?.message}`,
        ),
      );
    const completed = outcomes.filter(
      (outcome) => outcome.status === 'fulfilled' && outcome.value?.status === 'completed',
    );
    expectThat(
      completed.length >= 1 &&
        outcomes.every(
          (outcome) =>
            (outcome.status === 'fulfilled' &&
              (outcome.value?.status === 'completed' ||
                (outcome.value?.status === 'error' &&
                  SessionConflictError.isInstance(outcome.value.error)))) ||
            (outcome.status === 'rejected' &&
              ConfigError.isInstance(outcome.reason) &&
              outcome.reason.field === 'options.decisions[0].callId'),
        ),
      () => `two approvals of ${callId} at once ended ${shown()}`,
    );
    model.waiting.delete(branch);
    model.decided.push(callId);
    model.runs.set(callId, 1);
    const index = model.prompts.findIndex((record) => record.label === label);
    model.prompts[index] = { label, answered: true };
    await expectResult(world, branch, callId, {
      pattern: new RegExp(`\\bapproved_send ${label} done\\.`),
      isError: false,
    });
    // Either agent may hold a view the other moved (its next write a typed conflict, by design):
    // the sequence goes on as a new process would.
    world.agent = world.create();
    await world.agent.load();
  }
  toString = (): string => 'race-decision';
}

/**
 * A prompt whose first turn calls `asked_send`, a non-idempotent tool that asks two questions
 * before its side effect: the run ends `interrupted` on the first question, nothing sent. A new
 * agent on the session (the next process) answers it: still `interrupted`, on the second question
 * with the first answer kept, nothing sent. A third agent answers that: the run completes and the
 * side effect happened exactly once.
 */
export class QuestionCommand implements AgentCommand {
  readonly plan: Plan;
  constructor(plan: Plan) {
    this.plan = plan;
  }
  // Asked and answered in one command: on a branch where no call waits for a decision already.
  check = (model: Readonly<AgentModel>): boolean => !model.waiting.has(model.current);
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    const [first = [], ...rest] = this.plan;
    world.model.plan(label, [[...first, { tool: 'asked_send' }], ...rest]);
    const result = await world.agent.run(`${label} please`);
    model.exists = true;
    const asked = result.interrupts ?? [];
    expectThat(
      result.status === 'interrupted' && asked.length === 1 && asked[0]?.kind === 'question',
      () => `${label} ended ${describe(result)} with ${JSON.stringify(asked)}, not one question`,
    );
    const callId = asked[0]?.callId as string;
    // With an approval key each answer carries the token of the question it answers.
    let token = asked[0]?.token;
    const sentBy = (): number => world.tools.sent().filter((id) => id === callId).length;
    for (const [index, answer] of ['alice', 'yes'].entries()) {
      expectThat(sentBy() === 0, () => `${label}: asked_send ${callId} sent before its answers`);
      world.agent = world.create();
      const resumed = await world.agent.resume({
        decisions: [token === undefined ? { callId, answer } : { callId, answer, token }],
      });
      const last = index === 1;
      const waiting = resumed?.interrupts?.[0];
      token = waiting?.token;
      expectThat(
        last
          ? resumed?.status === 'completed'
          : resumed?.status === 'interrupted' &&
              waiting?.kind === 'question' &&
              JSON.stringify(waiting.answers) === '["alice"]',
        () => `answer ${index + 1} of ${label} ended ${describe(resumed)}`,
      );
    }
    expectThat(sentBy() === 1, () => `asked_send ${callId} sent ${sentBy()} time(s), not once`);
    model.prompts.push({ label, answered: true });
  }
  toString = (): string => `question(${showPlan(this.plan)})`;
}
