import type { AgentModel } from './agent-model.js';
import type { AgentWorld } from './agent-world.js';
import type { AgentCommand } from './command-support.js';
import { expectRefused } from './interrupt-history.js';

const FIRST = 'options.decisions[0]';

/**
 * A second resume with a decision on a call already decided (or answered as not run because a
 * new prompt came): a `ConfigError` naming the decision's `callId`; nothing runs again, no model
 * is called, and a call still waiting on the branch keeps waiting.
 */
export class RepeatDecisionCommand implements AgentCommand {
  readonly pick: number;
  readonly approve: boolean;
  constructor(pick: number, approve: boolean) {
    this.pick = pick;
    this.approve = approve;
  }
  check = (model: AgentModel): boolean => model.decided.length > 0;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const callId = model.decided[this.pick % model.decided.length] as string;
    const token = model.tokens.at(-1);
    const decision = this.approve
      ? { callId, approve: true as const, ...(token === undefined ? {} : { token }) }
      : { callId, approve: false as const, ...(token === undefined ? {} : { token }) };
    await expectRefused(
      model,
      world,
      () => world.agent.resume({ decisions: [decision] }),
      `${FIRST}.callId`,
      `a second decision on ${callId}`,
    );
  }
  toString = (): string => `decide-again(${this.pick}, ${this.approve ? 'approve' : 'deny'})`;
}

/** A decision for a call no turn ever made: a `ConfigError` naming its `callId`, nothing changed. */
export class UnknownDecisionCommand implements AgentCommand {
  check = (): boolean => true;
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    await expectRefused(
      model,
      world,
      () => world.agent.resume({ decisions: [{ callId: 'no-such-call', approve: true }] }),
      `${FIRST}.callId`,
      'a decision for an unknown call',
    );
  }
  toString = (): string => 'decide-unknown';
}

/**
 * With an `approvalKey`, an approval of the waiting call carrying a token that is not its own:
 * one an earlier interrupt gave (`earlier`), or one made for this call while the agent stood on
 * another branch (`moved`: the session moved, so the token is stale). A `ConfigError` naming the
 * decision's `token`; the call keeps waiting and nothing runs.
 */
export class StaleTokenCommand implements AgentCommand {
  readonly kind: 'earlier' | 'moved';
  constructor(kind: 'earlier' | 'moved') {
    this.kind = kind;
  }
  check = (model: AgentModel): boolean => {
    const waiting = model.waiting.get(model.current);
    if (waiting?.token === undefined) return false;
    return this.kind === 'earlier'
      ? model.tokens.some((token) => token !== waiting.token)
      : model.branches.size > 1;
  };
  async run(model: AgentModel, world: AgentWorld): Promise<void> {
    const waiting = model.waiting.get(model.current);
    if (waiting?.token === undefined) return;
    const token =
      this.kind === 'earlier'
        ? (model.tokens.findLast((candidate) => candidate !== waiting.token) as string)
        : await movedToken(model, world, waiting.callId, waiting.input);
    if (token === undefined) return;
    await expectRefused(
      model,
      world,
      () => world.agent.resume({ decisions: [{ callId: waiting.callId, approve: true, token }] }),
      `${FIRST}.token`,
      `an approval of ${waiting.callId} with ${this.kind === 'earlier' ? "an earlier interrupt's" : 'a moved session’s'} token`,
    );
  }
  toString = (): string => `stale-token(${this.kind})`;
}

/** The token the agent makes for the call while it stands on another branch; then it comes back. */
async function movedToken(
  model: AgentModel,
  world: AgentWorld,
  callId: string,
  input: unknown,
): Promise<string | undefined> {
  const agent = world.agent;
  if (typeof agent.approvalToken !== 'function') return undefined;
  const other = [...model.branches.keys()].find((branch) => branch !== model.current);
  if (other === undefined) return undefined;
  await agent.switchBranch(other);
  try {
    return agent.approvalToken({ callId, tool: 'approved_send' }, input);
  } finally {
    await agent.switchBranch(model.current);
  }
}
