import { ConfigError } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { Report } from '../report/report.js';
import type { CaseRun } from '../report/types.js';
import type { EvalAgentFactory } from './agent.js';
import { EvalCase } from './eval-case.js';
import { ProgressLine, type ProgressSink } from './progress.js';
import { runSession } from './session.js';

/** Options of `EvalRunner`. */
export interface EvalRunnerOptions {
  /** Sessions run at once (default 4). */
  readonly concurrency?: number;
  /** Sessions per case, each on a fresh agent (default 3); repeats expose flakiness. */
  readonly repeats?: number;
  /** Wall-clock limit of one session (all its prompts), ms; none by default. */
  readonly timeoutMs?: number;
  /**
   * A progress line: `true`/`false` forces it on stderr or off, a sink receives it. Default: on
   * only when stderr is a TTY.
   */
  readonly progress?: boolean | ProgressSink;
  /** Labels kept in the report (model id, git sha, mode). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Called with each session's record as it finishes (in completion order). */
  readonly onRun?: (run: CaseRun) => void;
}

const OPTION_KEYS = ['concurrency', 'repeats', 'timeoutMs', 'progress', 'labels', 'onRun'];

function positiveInteger(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new ConfigError(field, 'expected a positive integer');
  return value;
}

function checkedOptions(options: EvalRunnerOptions): Required<
  Pick<EvalRunnerOptions, 'concurrency' | 'repeats' | 'labels'>
> & {
  timeoutMs: number | undefined;
  progress: ProgressSink | undefined;
  onRun: ((run: CaseRun) => void) | undefined;
} {
  assertOptions(options, OPTION_KEYS, 'options');
  const timeoutMs = options.timeoutMs;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
  )
    throw new ConfigError('options.timeoutMs', 'expected a positive number of milliseconds');
  const labels = options.labels ?? {};
  if (
    labels === null ||
    typeof labels !== 'object' ||
    Object.values(labels).some((value) => typeof value !== 'string')
  )
    throw new ConfigError('options.labels', 'expected an object of strings');
  const progress = options.progress;
  let sink: ProgressSink | undefined;
  if (progress === undefined) sink = process.stderr.isTTY === true ? process.stderr : undefined;
  else if (progress === true) sink = process.stderr;
  else if (progress === false) sink = undefined;
  else if (
    progress !== null &&
    typeof progress === 'object' &&
    typeof progress.write === 'function'
  )
    sink = progress;
  else throw new ConfigError('options.progress', 'expected a boolean or { write(text) }');
  if (options.onRun !== undefined && typeof options.onRun !== 'function')
    throw new ConfigError('options.onRun', 'expected a function');
  return {
    concurrency: positiveInteger(options.concurrency, 'options.concurrency', 4),
    repeats: positiveInteger(options.repeats, 'options.repeats', 3),
    labels: { ...labels },
    timeoutMs,
    progress: sink,
    onRun: options.onRun,
  };
}

/**
 * Runs eval cases against agents from a factory: each case `repeats` times, `concurrency`
 * sessions at once, each session on a fresh agent with a fresh `InMemoryTracer`; grades every
 * session with the case's check, attributes each failure to a layer, and returns a `Report`.
 * @example
 * const runner = new EvalRunner(
 *   (evalCase, { tracer }) => new Agent({ provider: fake(), model: 'fake', tools, tracer }),
 *   [new EvalCase({ name: 'multiply', prompt: 'What is 6*7?', check: contains('42') })],
 *   { concurrency: 4, repeats: 3 },
 * );
 * const report = await runner.run();
 * console.log(report.render());
 */
export class EvalRunner {
  readonly #factory: EvalAgentFactory;
  readonly #cases: readonly EvalCase[];
  readonly #options: ReturnType<typeof checkedOptions>;

  constructor(
    factory: EvalAgentFactory,
    cases: readonly EvalCase[],
    options: EvalRunnerOptions = {},
  ) {
    if (typeof factory !== 'function')
      throw new ConfigError('factory', 'expected a function (case, context) => agent');
    if (!Array.isArray(cases) || cases.length === 0)
      throw new ConfigError('cases', 'expected a non-empty array of EvalCase');
    const names = new Set<string>();
    cases.forEach((evalCase, index) => {
      if (!(evalCase instanceof EvalCase))
        throw new ConfigError(`cases[${index}]`, 'expected an EvalCase');
      if (names.has(evalCase.name))
        throw new ConfigError(`cases[${index}].name`, `duplicate case name ${evalCase.name}`);
      names.add(evalCase.name);
    });
    this.#factory = factory;
    this.#cases = Object.freeze([...cases]);
    this.#options = checkedOptions(options);
  }

  /**
   * Runs every session and returns the report. Never rejects for a failing case; rejects only
   * with what `onRun` threw (after the sessions already running have ended).
   */
  async run(): Promise<Report> {
    const { concurrency, repeats, timeoutMs, labels, onRun } = this.#options;
    const startedAt = new Date();
    const started = performance.now();
    // Repeat-major order: the first sessions cover every case once.
    const tasks = Array.from({ length: repeats }, (_, repeat) =>
      this.#cases.map((evalCase, caseIndex) => ({ evalCase, caseIndex, repeat })),
    ).flat();
    const progress = this.#options.progress
      ? new ProgressLine(this.#options.progress, tasks.length)
      : undefined;
    const records: { caseIndex: number; run: CaseRun }[] = [];
    let next = 0;
    let callbackError: { error: unknown } | undefined;
    const worker = async (): Promise<void> => {
      for (let task = tasks[next++]; task !== undefined; task = tasks[next++]) {
        // Back to the event loop between sessions: agents that never wait on I/O (scripted
        // models, replays) run on microtasks alone and would otherwise starve the timers of the
        // other sessions (retry backoff, tool timeouts, this runner's own timeoutMs).
        await new Promise<void>((resolve) => setImmediate(resolve));
        const run = await runSession({ ...task, factory: this.#factory, timeoutMs });
        records.push({ caseIndex: task.caseIndex, run });
        progress?.tick(run.passed);
        try {
          onRun?.(run);
        } catch (error) {
          // Stop taking sessions; the error rejects run() once the running ones have ended.
          callbackError ??= { error };
          next = tasks.length;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
    } finally {
      progress?.end();
    }
    if (callbackError) throw callbackError.error;
    records.sort((a, b) => a.caseIndex - b.caseIndex || a.run.repeat - b.run.repeat);
    return new Report(
      records.map((record) => record.run),
      {
        startedAt: startedAt.toISOString(),
        repeats,
        concurrency,
        durationMs: performance.now() - started,
        labels,
      },
    );
  }
}
