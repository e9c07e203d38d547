import type { SessionStore } from '@mh/core';
import type { AsyncCommand } from 'fast-check';
import { checkGone, checkSession } from './check.js';
import type { SessionStoreConformanceOptions } from './options.js';
import type { ModelSession, StoreModel } from './store-model.js';

/** The real side of a sequence: the store under test (replaced by a reopen) and the counts. */
export class StoreHarness {
  store: SessionStore;
  readonly options: SessionStoreConformanceOptions;
  readonly counts: Record<string, number> = {};

  constructor(store: SessionStore, options: SessionStoreConformanceOptions) {
    this.store = store;
    this.options = options;
  }

  /** Counts one command of `kind` for the report. */
  count(kind: string): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
  }
}

/** A session a command touched, or only one branch of it. */
export interface Touched {
  readonly session: ModelSession;
  readonly branch?: string;
}

/**
 * Compares every session of the model with the store, and checks the deleted ones are gone;
 * `deep` (the default) adds the reads that only repeat `load` (`listCheckpoints`, …).
 */
export async function checkAll(model: StoreModel, real: StoreHarness, deep = true): Promise<void> {
  for (const session of model.sessions.values()) await checkSession(real.store, session, { deep });
  for (const id of model.deleted) await checkGone(real.store, id);
}

/**
 * A command of the suite: it resolves its generated picks against the model when it runs (the
 * same sequence means different sessions and branches as the model changes), runs the call on
 * the store and the model, and compares what the call touched. `toString` shows what it did.
 */
export abstract class StoreCommand implements AsyncCommand<StoreModel, StoreHarness> {
  /** The kind, for the report. */
  abstract readonly kind: string;
  /** What the last run did, for the shrunk counterexample. */
  protected done = '';

  check(): boolean {
    return true;
  }

  async run(model: StoreModel, real: StoreHarness): Promise<void> {
    real.count(this.kind);
    this.done = '';
    for (const { session, branch } of await this.apply(model, real)) {
      if (model.sessions.get(session.id) !== session) continue;
      const only = branch === undefined ? {} : { only: branch };
      await checkSession(real.store, session, { deep: false, ...only });
    }
  }

  /**
   * Runs the command; returns what it touched, compared with the store afterwards: one branch,
   * or (no branch named) the whole session. The end of every sequence compares everything.
   */
  protected abstract apply(model: StoreModel, real: StoreHarness): Promise<Touched[]>;

  /** The generated parameters. */
  protected abstract describe(): string;

  toString(): string {
    return this.done ? `${this.describe()} → ${this.done}` : this.describe();
  }
}

/** The session and branch a command acts on (branch `null`: the session's current one). */
export function target(
  model: StoreModel,
  sessionPick: number,
  branchPick: number | null,
): { session: ModelSession; branch: string } | undefined {
  const session = model.pickSession(sessionPick);
  if (!session) return undefined;
  const names = session.branchNames();
  const branch =
    branchPick === null ? session.current : (names[branchPick % names.length] ?? session.current);
  return { session, branch };
}
