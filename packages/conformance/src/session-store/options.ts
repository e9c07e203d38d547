import type { SessionStore } from '@mh/core';

/**
 * The store methods that write, by name: what a crash command asks another process to run
 * (`commitTurns` only when the store under test has it).
 */
export type StoreWriteMethod =
  | 'createSession'
  | 'commit'
  | 'commitTurns'
  | 'rewind'
  | 'fork'
  | 'switchBranch'
  | 'journalTurn'
  | 'journalStart'
  | 'journalEnd'
  | 'deleteSession';

/** One write, as plain JSON: `store[method](...args)`. */
export interface StoreWrite {
  /** The method to call. */
  readonly method: StoreWriteMethod;
  /** Its arguments, JSON-serialisable. */
  readonly args: readonly unknown[];
}

/** What became of a write whose process was killed. */
export interface CrashOutcome {
  /** True when the write committed before the kill (or finished before its k-th statement). */
  readonly landed: boolean;
}

/**
 * Runs `write` against the same storage in another process that is killed (SIGKILL) right after
 * the `k`-th statement it sends (1-based; a `k` past the write's last statement lets it finish),
 * and says whether the write landed. The store the suite holds stays open meanwhile.
 */
export type CrashWriter = (write: StoreWrite, k: number) => Promise<CrashOutcome>;

/** How `runSessionStoreConformance` gets the store under test and how long it runs. */
export interface SessionStoreConformanceOptions {
  /**
   * Opens the store under test, once per run (per generator, see `concurrency`). Every generated sequence works in sessions of its
   * own (ids prefixed per sequence), so one shared, already used store is fine. The suite closes
   * the last store it holds when it ends.
   */
  open(): Promise<SessionStore>;
  /**
   * Opens the same storage again (durability: committed work survives close and open). When
   * given, the sequences include a reopen command: the suite closes its store, then calls this.
   */
  reopen?(): Promise<SessionStore>;
  /** When given, the sequences include crash commands (see `CrashWriter`). */
  crashWriter?: CrashWriter;
  /** Sequences to generate (default 200). */
  readonly numRuns?: number;
  /** Most commands in one sequence (default 12). */
  readonly maxCommands?: number;
  /** Stops generating new sequences after this long, in ms (default: no limit). */
  readonly timeLimitMs?: number;
  /**
   * Independent generators run at once, each with its own store from `open` and seed `seed + i`
   * (default 1). Stores that wait on I/O (a database server) finish many more sequences so; the
   * sequences of different generators also race on one database, in sessions of their own.
   */
  readonly concurrency?: number;
  /** Replays a run: the seed (and `path`) a counterexample printed; runs one generator. */
  readonly seed?: number;
  /** With `seed`, jumps straight to the failing sequence (and its shrinks). */
  readonly path?: string;
}

/** What a passing run did. */
export interface SessionStoreConformanceReport {
  /** Generated sequences run to the end. */
  readonly runs: number;
  /** Commands run, by kind (`commit`, `commitStale`, `journalTurn`, …). */
  readonly commands: Readonly<Record<string, number>>;
  /** The seed of each generator (a counterexample prints its own, to pass back as `seed`). */
  readonly seeds: readonly number[];
  /** Whether `timeLimitMs` cut the run short. */
  readonly interrupted: boolean;
  /** Wall time of the run, in ms. */
  readonly durationMs: number;
}
