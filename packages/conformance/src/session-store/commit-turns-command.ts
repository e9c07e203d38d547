import type { Checkpoint, CommitOptions, SessionStore } from '@mh/core';
import { expectConflict, expectSuccess, same, violation } from './check.js';
import { recordCommit } from './commit-commands.js';
import { buildTurn, type TurnSpec } from './content.js';
import { StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import { type LastTurns, type ModelSession, pickOf, type StoreModel } from './store-model.js';

const short = (id: string | null): string => (id === null ? 'null' : id.slice(0, 10));

/**
 * The `pick`-th branch (modulo their number; `null`: the first) of the picked session whose last
 * `commitTurns` can be retried: its last checkpoint is still the head. Elsewhere a retry would
 * land the turns not yet on the head, or conflict; those retries are not generated.
 */
function retryable(
  model: StoreModel,
  sessionPick: number,
  branchPick: number | null,
): { session: ModelSession; branch: string } | undefined {
  const session = model.pickSession(sessionPick);
  if (!session) return undefined;
  const names = session.branchNames().filter((name) => {
    const { head, lastTurns } = session.branch(name);
    return lastTurns !== undefined && lastTurns.checkpoints.at(-1)?.id === head;
  });
  const branch = pickOf(names, branchPick ?? 0);
  return branch === undefined ? undefined : { session, branch };
}

/**
 * What a `CommitTurnsCommand` tries: the turns on the branch's head, on a head the branch no
 * longer has, or the branch's last `commitTurns` again.
 */
export type CommitTurnsVariant = 'head' | 'stale' | 'retry';

const KINDS: Record<CommitTurnsVariant, string> = {
  head: 'commitTurns',
  stale: 'commitTurnsStale',
  retry: 'commitTurnsRetry',
};

type Turns = LastTurns['turns'];

/**
 * `commitTurns` (a store's optional method), generated only for a store that has it:
 * - `head`: 1–3 turns on the branch's head land in order, one checkpoint each on the one before,
 *   checked one by one as commits, and the pending turn clears; with `refuse`
 *   (`pendingTurn: 'refuse'`, the first turn's), a turn journaled on that head makes it fail with
 *   a conflict on the unmoved head instead, changing nothing;
 * - `stale`: on a head the branch no longer has, `SessionConflictError` and nothing lands;
 * - `retry`: a branch's last `commitTurns` again, on a branch whose head is still its last
 *   checkpoint (the branch pick chooses among those), returns the same checkpoints and changes
 *   nothing.
 */
export class CommitTurnsCommand extends StoreCommand {
  readonly kind: string;
  readonly variant: CommitTurnsVariant;
  readonly session: number;
  readonly branch: number | null;
  readonly specs: readonly TurnSpec[];
  readonly refuse: boolean;
  readonly pick: number;
  constructor(
    variant: CommitTurnsVariant,
    session: number,
    branch: number | null,
    specs: readonly TurnSpec[],
    refuse: boolean,
    pick: number,
  ) {
    super();
    this.kind = KINDS[variant];
    this.variant = variant;
    this.session = session;
    this.branch = branch;
    this.specs = specs;
    this.refuse = refuse;
    this.pick = pick;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const t =
      this.variant === 'retry'
        ? retryable(model, this.session, this.branch)
        : target(model, this.session, this.branch);
    if (!t) return [];
    const store = real.store;
    if (typeof store.commitTurns !== 'function') {
      violation(`the store lost commitTurns (after a reopen?)`);
    }
    const commitTurns = (turns: Turns, options: CommitOptions): Promise<Checkpoint[]> =>
      (store.commitTurns as NonNullable<SessionStore['commitTurns']>).call(
        store,
        t.session.id,
        turns,
        options,
      );
    if (this.variant === 'stale') await this.#stale(model, t, commitTurns);
    else if (this.variant === 'retry') await this.#retry(t, commitTurns);
    else await this.#head(model, t, commitTurns);
    return [{ session: t.session, branch: t.branch }];
  }

  async #head(
    model: StoreModel,
    t: { session: ModelSession; branch: string },
    commitTurns: (turns: Turns, options: CommitOptions) => Promise<Checkpoint[]>,
  ): Promise<void> {
    const branch = t.session.branch(t.branch);
    const { head: expectedHead, pending } = branch;
    const turns = this.specs.map((spec) => buildTurn(model, spec));
    const options = {
      expectedHead,
      ...(this.branch === null ? {} : { branch: t.branch }),
      ...(this.refuse ? { pendingTurn: 'refuse' as const } : {}),
    };
    const what = `commitTurns(${t.session.id}/${t.branch}, ${turns.length} turns${this.refuse ? ', refuse' : ''}, expectedHead ${short(expectedHead)})`;
    if (this.refuse && pending && pending.baseHead === expectedHead) {
      await expectConflict(
        commitTurns(turns, options),
        { sessionId: t.session.id, expectedHead, actualHead: expectedHead },
        `${what} over the turn journaled on ${short(expectedHead)}`,
      );
      this.done = `${t.session.id}/${t.branch} refused over ${pending.assistant.id}`;
      return;
    }
    const checkpoints = await expectSuccess(commitTurns(turns, options), what);
    if (!Array.isArray(checkpoints) || checkpoints.length !== turns.length) {
      const got = Array.isArray(checkpoints) ? `${checkpoints.length}` : typeof checkpoints;
      violation(`${what}: expected ${turns.length} checkpoints, got ${got}`);
    }
    // Each checkpoint as the commit of its turn on the one before would return it.
    let parent = expectedHead;
    for (const [index, turn] of turns.entries()) {
      const checkpoint = checkpoints[index] as Checkpoint;
      recordCommit(t.session, t.branch, turn, checkpoint, parent, `${what} turn ${index + 1}`);
      parent = checkpoint.id;
    }
    branch.lastTurns = { turns, expectedHead, refuse: this.refuse, checkpoints };
    this.done = `${t.session.id}/${t.branch} ${[expectedHead, ...checkpoints.map((c) => c.id)].map(short).join(' → ')}`;
  }

  async #stale(
    model: StoreModel,
    t: { session: ModelSession; branch: string },
    commitTurns: (turns: Turns, options: CommitOptions) => Promise<Checkpoint[]>,
  ): Promise<void> {
    const head = t.session.branch(t.branch).head;
    const stale = pickOf(
      [null, ...t.session.checkpoints.keys()].filter((id) => id !== head),
      this.pick,
    );
    if (stale === undefined) return;
    const turns = this.specs.map((spec) => buildTurn(model, spec));
    await expectConflict(
      commitTurns(turns, {
        expectedHead: stale,
        branch: t.branch,
        ...(this.refuse ? { pendingTurn: 'refuse' as const } : {}),
      }),
      { sessionId: t.session.id, expectedHead: stale, actualHead: head },
      `commitTurns(${t.session.id}/${t.branch}, ${turns.length} turns) on stale head ${short(stale)} (head ${short(head)})`,
    );
    this.done = `${t.session.id}/${t.branch} on ${short(stale)}: conflict`;
  }

  async #retry(
    t: { session: ModelSession; branch: string },
    commitTurns: (turns: Turns, options: CommitOptions) => Promise<Checkpoint[]>,
  ): Promise<void> {
    const last = t.session.branch(t.branch).lastTurns as LastTurns;
    const lastId = (last.checkpoints.at(-1) as Checkpoint).id;
    const what = `commitTurns(${t.session.id}/${t.branch}) of the ${last.turns.length} turns up to ${short(lastId)} again`;
    const again = await expectSuccess(
      commitTurns(last.turns, {
        expectedHead: last.expectedHead,
        branch: t.branch,
        ...(last.refuse ? { pendingTurn: 'refuse' as const } : {}),
      }),
      what,
    );
    same(again, last.checkpoints, `${what}: returned checkpoints`);
    this.done = `same ${last.checkpoints.length} checkpoints`;
  }

  protected describe(): string {
    const where = `session ${this.session}, branch ${this.branch ?? 'current'}`;
    const kinds = this.specs.map((spec) => spec.kind).join(', ');
    const how = this.refuse ? ', refuse' : '';
    if (this.variant === 'retry') return `${this.kind}(${where})`;
    if (this.variant === 'stale') return `${this.kind}(${where}, pick ${this.pick}, [${kinds}])`;
    return `${this.kind}(${where}, [${kinds}]${how})`;
  }
}
