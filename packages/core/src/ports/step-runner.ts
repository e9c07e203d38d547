/** What a durable step runs: a model call, a tool call, a claim before a tool call, a store call. */
export const STEP_KINDS = ['model', 'tool', 'claim', 'store'] as const;
/** What a durable step runs (see `STEP_KINDS`). */
export type StepKind = (typeof STEP_KINDS)[number];

/** One durable step, as the loop names it. */
export interface StepInfo {
  /**
   * A stable name: the same code takes the same steps in the same order with the same names, so
   * an engine can check a replay against what it recorded. `model`, `tool:<tool name>`,
   * `claim:<tool name>`, `store:<method>`.
   */
  readonly name: string;
  /** What it runs. */
  readonly kind: StepKind;
  /**
   * Whether the engine may run it again after a failed attempt or a crash mid-step. False for a
   * model call (the provider retries inside the step, so the two do not stack), for a tool that
   * is not idempotent and for a store write; true for an idempotent tool.
   */
  readonly retries: boolean;
}

/**
 * The port through which a run becomes durable (`LoopOptions.steps`): the loop runs each model
 * call, each tool call and each session write through `step`, and takes its ids from `newId`. An
 * engine (DBOS, Temporal) records what a step returned; when a crashed run is run again from its
 * start, the engine returns the recorded values instead of running the steps again, so the run
 * takes the same path up to where it stopped and goes on from there. Without it (the default) the
 * loop calls everything directly.
 *
 * The contract:
 * - `step` returns what `run` returned, or, on a replay, what it returned the first time, without
 *   calling it. Values are plain JSON data (the loop records failures as data too).
 * - Steps are taken one at a time, in the same order on a replay.
 * - `newId` returns the same sequence of ids on a replay (derived from the run's durable id and a
 *   counter), and ids unique across runs.
 */
export interface StepRunner {
  /** Runs `run` as the step `step`, or returns its recorded value on a replay. */
  step<T>(step: StepInfo, run: () => Promise<T>): Promise<T>;
  /** A new id with `prefix` (`msg`, `run`, …), the same on a replay. */
  newId(prefix: string): string;
}
