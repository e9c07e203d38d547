import type { AgentModel } from './agent-model.js';
import { expectThat } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import { type AgentCommand, describe, type Plan, showPlan } from './command-support.js';

/**
 * A prompt whose first turn calls `approved_send`, a non-idempotent tool that needs approval
 * (after the planned calls of that turn, if any): the run must end `interrupted` with that one
 * call waiting and its side effect not done. Then a new agent on the session (as the next process
 * would build it) resumes with the decision: approved, the side effect happens exactly once;
 * denied, never; either way the run completes and the prompt has its one answer.
 */
export class InterruptCommand implements AgentCommand {
  readonly plan: Plan;
  readonly approve: boolean;
  constructor(plan: Plan, approve: boolean) {
    this.plan = plan;
    this.approve = approve;
  }
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const label = model.label();
    const [first = [], ...rest] = this.plan;
    world.model.plan(label, [[...first, { tool: 'approved_send' }], ...rest]);
    const result = await world.agent.run(`${label} please`);
    model.exists = true;
    expectThat(result.status === 'interrupted', () => `${label} ended ${describe(result)}`);
    const waiting = result.interrupts ?? [];
    expectThat(
      waiting.length === 1 && waiting[0]?.tool === 'approved_send',
      () => `${label} interrupted on ${JSON.stringify(waiting)}, not on its one approved_send`,
    );
    const callId = waiting[0]?.callId as string;
    expectThat(
      !world.tools.sent().includes(callId),
      () => `${label}: approved_send ${callId} ran before its approval`,
    );
    const fresh = world.create();
    world.agent = fresh;
    const resumed = await fresh.resume({
      decisions: [
        this.approve ? { callId, approve: true } : { callId, approve: false, message: 'no' },
      ],
    });
    expectThat(
      resumed?.status === 'completed',
      () =>
        `resume of ${label} (${this.approve ? 'approved' : 'denied'}) ended ${describe(resumed)}`,
    );
    const sent = world.tools.sent().filter((id) => id === callId).length;
    const answered = JSON.stringify(resumed?.messages.slice(-3));
    expectThat(
      sent === (this.approve ? 1 : 0),
      () =>
        `approved_send ${callId} ran ${sent} time(s) after it was ${this.approve ? 'approved' : 'denied'}: ${answered}`,
    );
    model.prompts.push({ label, answered: true });
  }
  toString = (): string =>
    `interrupt(${showPlan(this.plan)}, ${this.approve ? 'approve' : 'deny'})`;
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
  check = (): boolean => true;
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
    const sentBy = (): number => world.tools.sent().filter((id) => id === callId).length;
    for (const [index, answer] of ['alice', 'yes'].entries()) {
      expectThat(sentBy() === 0, () => `${label}: asked_send ${callId} sent before its answers`);
      world.agent = world.create();
      const resumed = await world.agent.resume({ decisions: [{ callId, answer }] });
      const last = index === 1;
      const waiting = resumed?.interrupts?.[0];
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
