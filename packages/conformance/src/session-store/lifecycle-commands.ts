import { DEFAULT_BRANCH, type Message } from '@mh/core';
import { checkGone, expectRejection, expectSuccess, same } from './check.js';
import { buildAssistant, resultOf } from './content.js';
import { checkAll, StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { ModelSession, pickOf, type StoreModel } from './store-model.js';

/** Creates a session with a fresh id (an id in use is a `ConfigError`). */
export class CreateSessionCommand extends StoreCommand {
  readonly kind = 'createSession';
  readonly title: string | undefined;
  readonly duplicate: boolean;
  constructor(title: string | undefined, duplicate: boolean) {
    super();
    this.title = title;
    this.duplicate = duplicate;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const taken = this.duplicate ? model.pickSession(0) : undefined;
    if (taken) {
      await expectRejection(
        real.store.createSession({ id: taken.id }),
        'config',
        `createSession(${taken.id}) of an id in use`,
      );
      this.done = 'ConfigError';
      return [{ session: taken }];
    }
    return [{ session: await createSession(model, real, this.title) }];
  }

  protected describe(): string {
    return `createSession(${this.title === undefined ? 'untitled' : JSON.stringify(this.title)}${this.duplicate ? ', id in use' : ''})`;
  }
}

/** Creates a session with a fresh id in the store and the model. */
export async function createSession(
  model: StoreModel,
  real: StoreHarness,
  title: string | undefined,
): Promise<ModelSession> {
  const id = model.fresh('s');
  const options = title === undefined ? { id } : { id, title };
  const info = await expectSuccess(real.store.createSession(options), `createSession(${id})`);
  same(
    { id: info.id, title: info.title, branch: info.branch, turns: info.turns },
    { id, title, branch: DEFAULT_BRANCH, turns: 0 },
    `createSession(${id}): returned info`,
  );
  const session = new ModelSession(id, title);
  model.sessions.set(id, session);
  return session;
}

/** Deletes a session (an unknown id is a `ConfigError`); the others are left as they were. */
export class DeleteSessionCommand extends StoreCommand {
  readonly kind = 'deleteSession';
  readonly session: number;
  readonly unknown: boolean;
  constructor(session: number, unknown: boolean) {
    super();
    this.session = session;
    this.unknown = unknown;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    if (this.unknown) {
      const id = model.fresh('nosession');
      await expectRejection(
        real.store.deleteSession(id),
        'config',
        `deleteSession(${id}) of an unknown session`,
      );
      this.done = 'ConfigError';
      return [];
    }
    const session = model.pickSession(this.session);
    if (!session) return [];
    await expectSuccess(real.store.deleteSession(session.id), `deleteSession(${session.id})`);
    model.sessions.delete(session.id);
    model.deleted.add(session.id);
    await checkGone(real.store, session.id);
    this.done = session.id;
    return [...model.sessions.values()].map((live) => ({ session: live }));
  }

  protected describe(): string {
    return `deleteSession(${this.unknown ? 'unknown' : `session ${this.session}`})`;
  }
}

/** Closes the store and opens the same storage again: everything committed is still there. */
export class ReopenCommand extends StoreCommand {
  readonly kind = 'reopen';

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const reopen = real.options.reopen;
    if (!reopen) return [];
    await expectSuccess(real.store.close(), 'close()');
    real.store = await expectSuccess(reopen(), 'reopen()');
    await checkAll(model, real);
    return [];
  }

  protected describe(): string {
    return 'reopen()';
  }
}

/** The bad calls: each must be a `ConfigError` (never a raw error) and change nothing. */
const BAD_CALLS = [
  'commit with no message',
  'commit with a system message',
  'commit with a non-string expectedHead',
  'load of an unknown branch',
  'load of an unknown session',
  'rewind to an unknown checkpoint',
  'fork from an unknown branch',
  'journalTurn of a user message',
  'journalTurn of calls sharing an id',
  'journalTurn on an unknown checkpoint',
  'journalEnd with the result of another call',
  'journalStart of a non-string call id',
  'pendingTurn of an unknown branch',
] as const;

/** Makes one bad call (see `BAD_CALLS`). */
export class BadCallCommand extends StoreCommand {
  readonly kind = 'badCall';
  readonly which: number;
  readonly session: number;
  readonly branch: number;
  constructor(which: number, session: number, branch: number) {
    super();
    this.which = which;
    this.session = session;
    this.branch = branch;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const { store } = real;
    const id = t.session.id;
    const head = t.session.branch(t.branch).head;
    const bad = BAD_CALLS[this.which % BAD_CALLS.length] ?? BAD_CALLS[0];
    const text = (value: string): Message => ({
      id: model.fresh('x'),
      role: 'user',
      content: [{ type: 'text', text: value }],
    });
    const assistant = buildAssistant(model, 'twice', 2);
    const calls: Record<(typeof BAD_CALLS)[number], () => Promise<unknown>> = {
      'commit with no message': () =>
        store.commit(id, { messages: [], meta: {} }, { expectedHead: head, branch: t.branch }),
      'commit with a system message': () =>
        store.commit(
          id,
          { messages: [{ ...text('s'), role: 'system' } as unknown as Message], meta: {} },
          { expectedHead: head, branch: t.branch },
        ),
      'commit with a non-string expectedHead': () =>
        store.commit(
          id,
          { messages: [text('h')], meta: {} },
          { expectedHead: 42 as unknown as string, branch: t.branch },
        ),
      'load of an unknown branch': () => store.load(id, model.fresh('nobranch')),
      'load of an unknown session': () => store.load(model.fresh('nosession')),
      'rewind to an unknown checkpoint': () =>
        store.rewind(id, model.fresh('nocheckpoint'), model.fresh('b')),
      'fork from an unknown branch': () =>
        store.fork(id, model.fresh('b'), model.fresh('nobranch')),
      'journalTurn of a user message': () => store.journalTurn(id, t.branch, head, text('u')),
      'journalTurn of calls sharing an id': () => {
        const [first] = assistant.content.filter((block) => block.type === 'tool_use');
        const twice = { ...assistant, content: [...assistant.content, ...(first ? [first] : [])] };
        return store.journalTurn(id, t.branch, head, twice);
      },
      'journalTurn on an unknown checkpoint': () =>
        store.journalTurn(id, t.branch, model.fresh('nocheckpoint'), assistant),
      'journalEnd with the result of another call': () => {
        const entry = pickOf(t.session.branch(t.branch).pending?.calls ?? [], this.which);
        const callId = entry?.call.id ?? model.fresh('call');
        return store.journalEnd(id, t.branch, callId, resultOf(`${callId}-other`, 'r', false));
      },
      'journalStart of a non-string call id': () =>
        store.journalStart(id, t.branch, 42 as unknown as string),
      'pendingTurn of an unknown branch': () => store.pendingTurn(id, model.fresh('nobranch')),
    };
    await expectRejection(calls[bad](), 'config', `${bad} (${id}/${t.branch})`);
    this.done = 'ConfigError';
    return [{ session: t.session }];
  }

  protected describe(): string {
    return `badCall(${BAD_CALLS[this.which % BAD_CALLS.length]}, session ${this.session}, branch ${this.branch})`;
  }
}
