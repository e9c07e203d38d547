import { violation } from './check.js';
import { recordCommit } from './commit-commands.js';
import { buildAssistant, buildTurn, resultOf, type TurnSpec } from './content.js';
import { checkAll, StoreCommand, type StoreHarness, type Touched, target } from './harness.js';
import type { StoreWrite } from './options.js';
import { ModelSession, pendingOf, pickOf, type StoreModel } from './store-model.js';

/** The writes a crash command can interrupt. */
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
/** One of `CRASH_OPS`. */
export type CrashOp = (typeof CRASH_OPS)[number];

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
 */
export class CrashCommand extends StoreCommand {
  readonly kind = 'crash';
  readonly op: CrashOp;
  readonly k: number;
  readonly session: number;
  readonly branch: number;
  readonly pick: number;
  readonly spec: TurnSpec;
  constructor(
    op: CrashOp,
    k: number,
    session: number,
    branch: number,
    pick: number,
    spec: TurnSpec,
  ) {
    super();
    this.op = op;
    this.k = k;
    this.session = session;
    this.branch = branch;
    this.pick = pick;
    this.spec = spec;
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
    return `crash(${this.op} after statement ${this.k}, session ${this.session}, branch ${this.branch})`;
  }
}
