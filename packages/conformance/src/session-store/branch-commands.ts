import type { SessionState } from '@mh/core';
import { checkSession, expectRejection, expectSuccess, same } from './check.js';
import { StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { type ModelSession, pickOf, type StoreModel } from './store-model.js';

const short = (id: string | null): string => (id === null ? 'null' : id.slice(0, 10));

/** The state a branch switch returned must be the branch as the model has it. */
function checkState(state: SessionState, session: ModelSession, name: string, what: string): void {
  const head = session.branch(name).head;
  same(
    {
      sessionId: state.sessionId,
      branch: state.branch,
      head: state.head,
      messages: state.messages,
    },
    {
      sessionId: session.id,
      branch: name,
      head,
      messages: session.chain(head).flatMap((c) => c.messages),
    },
    `${what}: returned state`,
  );
}

/** Starts a new current branch at any checkpoint of the session, or empty; a taken name fails. */
export class RewindCommand extends StoreCommand {
  readonly kind = 'rewind';
  readonly session: number;
  readonly pick: number;
  readonly toEmpty: boolean;
  readonly takenName: boolean;
  constructor(session: number, pick: number, toEmpty: boolean, takenName: boolean) {
    super();
    this.session = session;
    this.pick = pick;
    this.toEmpty = toEmpty;
    this.takenName = takenName;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const session = model.pickSession(this.session);
    if (!session) return [];
    const at = this.toEmpty ? null : (pickOf([...session.checkpoints.keys()], this.pick) ?? null);
    const name = this.takenName
      ? (pickOf(session.branchNames(), this.pick) ?? 'main')
      : model.fresh('b');
    const what = `rewind(${session.id}, ${short(at)}, ${name})`;
    if (this.takenName) {
      await expectRejection(
        real.store.rewind(session.id, at, name),
        'config',
        `${what} to an existing branch`,
      );
      this.done = 'ConfigError';
      return [{ session }];
    }
    const state = await expectSuccess(real.store.rewind(session.id, at, name), what);
    session.startBranch(name, at);
    checkState(state, session, name, what);
    this.done = `${name} at ${short(at)}`;
    return [{ session }];
  }

  protected describe(): string {
    return `rewind(session ${this.session}, pick ${this.pick}${this.toEmpty ? ', empty' : ''}${this.takenName ? ', taken name' : ''})`;
  }
}

/** Forks a branch (current or named) to a new current branch; a taken name fails. */
export class ForkCommand extends StoreCommand {
  readonly kind = 'fork';
  readonly session: number;
  readonly from: number | null;
  readonly takenName: boolean;
  constructor(session: number, from: number | null, takenName: boolean) {
    super();
    this.session = session;
    this.from = from;
    this.takenName = takenName;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.from);
    if (!t) return [];
    const name = this.takenName ? t.branch : model.fresh('b');
    const call =
      this.from === null
        ? real.store.fork(t.session.id, name)
        : real.store.fork(t.session.id, name, t.branch);
    const what = `fork(${t.session.id}, ${name}, from ${t.branch})`;
    if (this.takenName) {
      await expectRejection(call, 'config', `${what} to an existing branch`);
      this.done = 'ConfigError';
      return [{ session: t.session }];
    }
    const state = await expectSuccess(call, what);
    t.session.startBranch(name, t.session.branch(t.branch).head);
    checkState(state, t.session, name, what);
    this.done = `${name} from ${t.branch}`;
    return [{ session: t.session }];
  }

  protected describe(): string {
    return `fork(session ${this.session}, from ${this.from ?? 'current'}${this.takenName ? ', taken name' : ''})`;
  }
}

/** Makes a branch current; an unknown one is a `ConfigError`. */
export class SwitchBranchCommand extends StoreCommand {
  readonly kind = 'switchBranch';
  readonly session: number;
  readonly branch: number;
  readonly unknown: boolean;
  constructor(session: number, branch: number, unknown: boolean) {
    super();
    this.session = session;
    this.branch = branch;
    this.unknown = unknown;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    if (this.unknown) {
      const name = model.fresh('nobranch');
      await expectRejection(
        real.store.switchBranch(t.session.id, name),
        'config',
        `switchBranch(${t.session.id}, ${name})`,
      );
      this.done = 'ConfigError';
      return [{ session: t.session }];
    }
    const what = `switchBranch(${t.session.id}, ${t.branch})`;
    const state = await expectSuccess(real.store.switchBranch(t.session.id, t.branch), what);
    t.session.current = t.branch;
    checkState(state, t.session, t.branch, what);
    this.done = t.branch;
    return [{ session: t.session }];
  }

  protected describe(): string {
    return `switchBranch(session ${this.session}, branch ${this.branch}${this.unknown ? ', unknown' : ''})`;
  }
}

/** Reads everything (`listCheckpoints`, `listBranches`, `load`, `pendingTurn`) of a session. */
export class ReadCommand extends StoreCommand {
  readonly kind = 'read';
  readonly session: number;
  constructor(session: number) {
    super();
    this.session = session;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const session = model.pickSession(this.session);
    if (!session) return [];
    await checkSession(real.store, session, { deep: true });
    const listed = await expectSuccess(real.store.listSessions(), 'listSessions()');
    const ids = new Set(listed.map((info) => info.id));
    for (const id of model.sessions.keys()) {
      if (!ids.has(id)) same(false, true, `listSessions() lists live session ${id}`);
    }
    for (const id of model.deleted) {
      if (ids.has(id)) same(true, false, `listSessions() lists deleted session ${id}`);
    }
    return [];
  }

  protected describe(): string {
    return `read(session ${this.session})`;
  }
}
