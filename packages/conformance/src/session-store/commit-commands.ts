import type { Message } from '@mh/core';
import { canonicalJson } from '@mh/core/internal';
import { expectConflict, expectRejection, expectSuccess, same, violation } from './check.js';
import { buildTurn, type TurnSpec } from './content.js';
import { StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { type ModelSession, pickOf, type StoreModel } from './store-model.js';

const short = (id: string | null): string => (id === null ? 'null' : id.slice(0, 10));

/**
 * Records a checkpoint that landed on `branch`, after checking what the store returned; `call`
 * names the call in a violation (default `commit`).
 */
export function recordCommit(
  session: ModelSession,
  branchName: string,
  turn: { readonly messages: readonly Message[]; readonly meta: TurnSpec['meta'] },
  checkpoint: {
    id: string;
    parentId: string | null;
    turn: number;
    sessionId: string;
    messageIds: readonly string[];
    meta: unknown;
  },
  expectedHead: string | null,
  call = 'commit',
): void {
  const branch = session.branch(branchName);
  const what = `${call} on ${session.id}/${branchName}`;
  same(
    {
      sessionId: checkpoint.sessionId,
      parentId: checkpoint.parentId,
      turn: checkpoint.turn,
      messageIds: checkpoint.messageIds,
      meta: checkpoint.meta,
    },
    {
      sessionId: session.id,
      parentId: expectedHead,
      turn: session.chain(expectedHead).length + 1,
      messageIds: turn.messages.map((m) => m.id),
      meta: turn.meta,
    },
    `${what}: returned checkpoint`,
  );
  if (typeof checkpoint.id !== 'string' || checkpoint.id.length === 0)
    violation(`${what}: empty checkpoint id`);
  const known = session.checkpoints.get(checkpoint.id);
  if (known && canonicalJson(known.messages) !== canonicalJson(turn.messages)) {
    violation(`${what}: checkpoint id ${checkpoint.id} already names other content`);
  }
  session.checkpoints.set(checkpoint.id, {
    id: checkpoint.id,
    parentId: expectedHead,
    turn: checkpoint.turn,
    messages: turn.messages,
    meta: turn.meta,
  });
  branch.head = checkpoint.id;
  branch.pending = undefined;
  branch.lastCommit = { turn, expectedHead, id: checkpoint.id };
}

/**
 * Commits a new turn on the branch's head: it lands, the head moves, the pending turn clears.
 * With `refuse` (`pendingTurn: 'refuse'`), a turn journaled on that head makes it fail with a
 * conflict on the unmoved head instead, changing nothing.
 */
export class CommitCommand extends StoreCommand {
  readonly kind = 'commit';
  readonly session: number;
  readonly branch: number | null;
  readonly spec: TurnSpec;
  readonly refuse: boolean;
  constructor(session: number, branch: number | null, spec: TurnSpec, refuse = false) {
    super();
    this.session = session;
    this.branch = branch;
    this.spec = spec;
    this.refuse = refuse;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const { head: expectedHead, pending } = t.session.branch(t.branch);
    const turn = buildTurn(model, this.spec);
    const options = {
      expectedHead,
      ...(this.branch === null ? {} : { branch: t.branch }),
      ...(this.refuse ? { pendingTurn: 'refuse' as const } : {}),
    };
    if (this.refuse && pending && pending.baseHead === expectedHead) {
      await expectConflict(
        real.store.commit(t.session.id, turn, options),
        { sessionId: t.session.id, expectedHead, actualHead: expectedHead },
        `commit(${t.session.id}/${t.branch}, refuse) over the turn journaled on ${short(expectedHead)}`,
      );
      this.done = `${t.session.id}/${t.branch} refused over ${pending.assistant.id}`;
      return [{ session: t.session, branch: t.branch }];
    }
    const checkpoint = await expectSuccess(
      real.store.commit(t.session.id, turn, options),
      `commit(${t.session.id}, ${this.branch === null ? 'current' : t.branch}, expectedHead ${short(expectedHead)})`,
    );
    recordCommit(t.session, t.branch, turn, checkpoint, expectedHead);
    this.done = `${t.session.id}/${t.branch} ${short(expectedHead)} → ${short(checkpoint.id)}`;
    return [{ session: t.session, branch: t.branch }];
  }

  protected describe(): string {
    const how = this.refuse ? ', refuse' : '';
    return `commit(session ${this.session}, branch ${this.branch ?? 'current'}, ${this.spec.kind}${how})`;
  }
}

/** Commits on a head the branch no longer has: `SessionConflictError`, nothing changes. */
export class CommitStaleCommand extends StoreCommand {
  readonly kind = 'commitStale';
  readonly session: number;
  readonly branch: number;
  readonly pick: number;
  readonly spec: TurnSpec;
  constructor(session: number, branch: number, pick: number, spec: TurnSpec) {
    super();
    this.session = session;
    this.branch = branch;
    this.pick = pick;
    this.spec = spec;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    if (!t) return [];
    const head = t.session.branch(t.branch).head;
    const stale = pickOf(
      [null, ...t.session.checkpoints.keys()].filter((id) => id !== head),
      this.pick,
    );
    if (stale === undefined) return [];
    await expectConflict(
      real.store.commit(t.session.id, buildTurn(model, this.spec), {
        expectedHead: stale,
        branch: t.branch,
      }),
      { sessionId: t.session.id, expectedHead: stale, actualHead: head },
      `commit(${t.session.id}/${t.branch}) on stale head ${short(stale)} (head ${short(head)})`,
    );
    this.done = `${t.session.id}/${t.branch} on ${short(stale)}: conflict`;
    return [{ session: t.session, branch: t.branch }];
  }

  protected describe(): string {
    return `commitStale(session ${this.session}, branch ${this.branch}, pick ${this.pick})`;
  }
}

/**
 * Repeats the last commit of a branch (`from`) on a branch (a retry after an unknown outcome, or
 * the same turn replayed elsewhere): the same checkpoint while it is the head; on its parent,
 * it lands as that very checkpoint (ids derive from content); anywhere else `SessionConflictError`.
 */
export class CommitRetryCommand extends StoreCommand {
  readonly kind = 'commitRetry';
  readonly session: number;
  readonly branch: number;
  readonly from: number;
  constructor(session: number, branch: number, from: number) {
    super();
    this.session = session;
    this.branch = branch;
    this.from = from;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t = target(model, this.session, this.branch);
    const source = t && target(model, this.session, this.from);
    const last = source?.session.branch(source.branch).lastCommit;
    if (!t || !last) return [];
    const head = t.session.branch(t.branch).head;
    const call = real.store.commit(t.session.id, last.turn, {
      expectedHead: last.expectedHead,
      branch: t.branch,
    });
    const what = `commit(${t.session.id}/${t.branch}) of the turn of ${short(last.id)} again`;
    if (head === last.id || head === last.expectedHead) {
      const checkpoint = await expectSuccess(call, what);
      same(checkpoint.id, last.id, `${what}: returned checkpoint`);
      if (head === last.expectedHead)
        recordCommit(t.session, t.branch, last.turn, checkpoint, head);
      this.done = head === last.id ? 'same checkpoint' : `landed as ${short(last.id)}`;
    } else {
      await expectRejection(call, 'conflict', `${what} while the head is ${short(head)}`);
      this.done = 'conflict';
    }
    return [{ session: t.session, branch: t.branch }];
  }

  protected describe(): string {
    return `commitRetry(session ${this.session}, branch ${this.branch}, from ${this.from})`;
  }
}
