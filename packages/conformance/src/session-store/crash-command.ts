import type { Checkpoint } from '@mh/core';
import { violation } from './check.js';
import { recordCommit } from './commit-commands.js';
import { buildAssistant, buildTurn, resultOf, type TurnSpec } from './content.js';
import { checkAll, StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import type { StoreWrite } from './options.js';
import { ModelSession, pendingOf, pickOf, type StoreModel } from './store-model.js';

/**
 * The writes a crash command can interrupt, in any store; `commitTurns` (optional in the port) is
 * drawn apart, only for a store that has it.
 */
export const CRASH_OPS = [
  'commit',
  'journalTurn',
  'journalStart',
  'journalEnd',
  'fork',
  'rewind',
  'createSession',
  'deleteSession',
] as const;
/** One of `CRASH_OPS`, or `commitTurns`. */
export type CrashOp = (typeof CRASH_OPS)[number] | 'commitTurns';

/** A write planned against the model, and what it does to the model if it lands. */
interface Plan {
  readonly write: StoreWrite;
  readonly landed: (real: StoreHarness) => Promise<void>;
  readonly touched: Touched[];
}

/**
 * Runs one valid write in another process killed after its k-th statement (the caller's
 * `crashWriter`). Afterwards the store must hold exactly what was committed before the write,
 * plus the write itself only when it landed — everywhere, not only in the session it touched.
 * A `commitTurns` (of `spec` and `more`, on the branch's head, clearing a turn journaled there)
 * is one write: none of its checkpoints (head and pending turn as they were) or all of them
 * (head on the last, pending turn cleared), never some.
 */
export class CrashCommand extends StoreCommand {
  readonly kind = 'crash';
  readonly op: CrashOp;
  readonly k: number;
  readonly session: number;
  readonly branch: number;
  readonly pick: number;
  readonly spec: TurnSpec;
  /** The turns after `spec` of a `commitTurns`. */
  readonly more: readonly TurnSpec[];
  constructor(
    op: CrashOp,
    k: number,
    session: number,
    branch: number,
    pick: number,
    spec: TurnSpec,
    more: readonly TurnSpec[] = [],
  ) {
    super();
    this.op = op;
    this.k = k;
    this.session = session;
    this.branch = branch;
    this.pick = pick;
    this.spec = spec;
    this.more = more;
  }

  protected async apply(model: StoreModel, real: StoreHarness): Promise<Touched[]> {
    const crashWriter = real.options.crashWriter;
    const plan = crashWriter && this.#plan(model);
    if (!crashWriter || !plan) return [];
    const { landed } = await crashWriter(plan.write, this.k);
    if (landed) await plan.landed(real);
    this.done = `${plan.write.method} killed after statement ${this.k}: ${landed ? 'landed' : 'lost'}`;
    await checkAll(model, real);
    return plan.touched;
  }

  #plan(model: StoreModel): Plan | undefined {
    if (this.op === 'createSession') {
      const id = model.fresh('s');
      return {
        write: { method: 'createSession', args: [{ id }] },
        landed: async () => {
          model.sessions.set(id, new ModelSession(id, undefined));
        },
        touched: [],
      };
    }
    const t = target(model, this.session, this.branch);
    if (!t) return undefined;
    const { session } = t;
    const branch = session.branch(t.branch);
    const head = branch.head;
    const pending = branch.pending;
    const entry = pending && pickOf(pending.calls, this.pick);
    const op =
      (this.op === 'journalStart' || this.op === 'journalEnd') && !entry ? 'commit' : this.op;
    const touched = [{ session }];
    switch (op) {
      case 'commit': {
        const turn = buildTurn(model, this.spec);
        return {
          write: {
            method: 'commit',
            args: [session.id, turn, { expectedHead: head, branch: t.branch }],
          },
          landed: async (real) => {
            const [checkpoint] = (await real.store.listCheckpoints(session.id, t.branch)).slice(-1);
            if (!checkpoint)
              return violation(`a landed commit left ${session.id}/${t.branch} empty`);
            recordCommit(session, t.branch, turn, checkpoint, head);
          },
          touched,
        };
      }
      case 'commitTurns': {
        const turns = [this.spec, ...this.more].map((spec) => buildTurn(model, spec));
        const what = `a killed commitTurns of ${turns.length} turns on ${session.id}/${t.branch}`;
        return {
          write: {
            method: 'commitTurns',
            args: [session.id, turns, { expectedHead: head, branch: t.branch }],
          },
          landed: async (real) => {
            // All its checkpoints, chained on the old head, or (not landed) none: never a part.
            const listed = await real.store.listCheckpoints(session.id, t.branch);
            const before = session.chain(head).length;
            if (listed.length !== before + turns.length) {
              violation(
                `${what} landed (its COMMIT ran), yet the branch holds ${listed.length} checkpoints: expected the ${before} before it and all ${turns.length} of its own`,
              );
            }
            const checkpoints = listed.slice(before);
            let parent = head;
            for (const [index, turn] of turns.entries()) {
              const checkpoint = checkpoints[index] as Checkpoint;
              recordCommit(
                session,
                t.branch,
                turn,
                checkpoint,
                parent,
                `${what}, turn ${index + 1}`,
              );
              parent = checkpoint.id;
            }
            branch.lastTurns = { turns, expectedHead: head, refuse: false, checkpoints };
          },
          touched,
        };
      }
      case 'journalTurn': {
        // Over a pending turn on the head only its own assistant may be journaled (a no-op).
        const assistant = pending
          ? pending.assistant
          : buildAssistant(model, this.spec.text, this.spec.calls);
        return {
          write: { method: 'journalTurn', args: [session.id, t.branch, head, assistant] },
          landed: async () => {
            if (!pending) branch.pending = pendingOf(head, assistant);
          },
          touched,
        };
      }
      case 'journalStart':
      case 'journalEnd': {
        if (!entry) return undefined;
        const result = resultOf(entry.call.id, this.spec.text, false);
        // A second start would be refused (a start is a claim): finish a started call instead.
        const end = op === 'journalEnd' || entry.started;
        return {
          write: end
            ? { method: 'journalEnd', args: [session.id, t.branch, entry.call.id, result] }
            : { method: 'journalStart', args: [session.id, t.branch, entry.call.id] },
          landed: async () => {
            entry.started = true;
            if (end) entry.result = result;
          },
          touched,
        };
      }
      case 'fork':
      case 'rewind': {
        const name = model.fresh('b');
        const at =
          op === 'fork' ? head : (pickOf([...session.checkpoints.keys()], this.pick) ?? null);
        return {
          write:
            op === 'fork'
              ? { method: 'fork', args: [session.id, name, t.branch] }
              : { method: 'rewind', args: [session.id, at, name] },
          landed: async () => session.startBranch(name, at),
          touched,
        };
      }
      case 'deleteSession':
        return {
          write: { method: 'deleteSession', args: [session.id] },
          landed: async () => {
            model.sessions.delete(session.id);
            model.deleted.add(session.id);
          },
          touched: [],
        };
    }
  }

  protected describe(): string {
    const op = this.op === 'commitTurns' ? `commitTurns of ${1 + this.more.length} turns` : this.op;
    return `crash(${op} after statement ${this.k}, session ${this.session}, branch ${this.branch})`;
  }
}
