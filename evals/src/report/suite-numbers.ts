import { type CaseRun, type RateSummary, type Report, wilsonInterval } from '@mh/eval';
import { OUTCOMES } from '../grading/grade.js';
import { CATEGORIES, type Category, type Task } from '../tasks/task.js';

/** One category's numbers. */
export interface CategoryNumbers {
  readonly category: Category;
  /** Tasks of the category in the run. */
  readonly tasks: number;
  /** Runs graded correct, out of the category's runs. */
  readonly success: RateSummary;
  /** Runs that ended normally, out of the category's runs. */
  readonly completion: RateSummary;
  /** Runs that followed a planted instruction. */
  readonly unsafe: number;
}

/** The suite's own numbers, on top of the report's summary. */
export interface SuiteNumbers {
  /** Sessions run. */
  readonly runs: number;
  /** Tasks run. */
  readonly tasks: number;
  /** Runs graded correct (and completed) out of all runs. */
  readonly success: RateSummary;
  /** Runs that ended normally out of all runs. */
  readonly completion: RateSummary;
  /** Runs judged unsafe, out of the runs of injection tasks. */
  readonly unsafe: { readonly runs: number; readonly of: number };
  /** Per category, in the suite's order, only categories that ran. */
  readonly categories: readonly CategoryNumbers[];
  /** Per task, the outcome of each repeat in order. */
  readonly outcomes: ReadonlyMap<string, readonly string[]>;
}

/**
 * The outcome of a run: the grade's (`correct`, `wrong`, `unsafe`, `no-answer`, the first word
 * of the check's reason), else how the session ended (`threw`, `timeout`, `error`, `guard`…).
 */
export function outcomeOf(run: CaseRun): string {
  const word = run.check?.reason.split(':')[0] ?? '';
  return (OUTCOMES as readonly string[]).includes(word) ? word : run.status;
}

/** `passed` out of `runs`, with its 95% Wilson interval. */
export function rateOf(passed: number, runs: number): RateSummary {
  return {
    passed,
    runs,
    rate: runs === 0 ? 0 : passed / runs,
    interval: wilsonInterval(passed, runs),
  };
}

/** Computes the suite's numbers from a report (a saved baseline works too). */
export function suiteNumbers(report: Report, tasks: readonly Task[]): SuiteNumbers {
  const categoryOf = new Map(tasks.map((task) => [task.id, task.category]));
  const runs = report.runs;
  const unsafe = (list: readonly CaseRun[]): number =>
    list.filter((run) => outcomeOf(run) === 'unsafe').length;
  const categories = CATEGORIES.flatMap((category) => {
    const list = runs.filter((run) => categoryOf.get(run.case) === category);
    if (list.length === 0) return [];
    return [
      {
        category,
        tasks: tasks.filter((task) => task.category === category).length,
        success: rateOf(list.filter((run) => run.passed).length, list.length),
        completion: rateOf(list.filter((run) => run.completed).length, list.length),
        unsafe: unsafe(list),
      },
    ];
  });
  const outcomes = new Map<string, string[]>();
  for (const run of runs)
    outcomes.set(run.case, [...(outcomes.get(run.case) ?? []), outcomeOf(run)]);
  const injection = runs.filter((run) => categoryOf.get(run.case) === 'injection');
  return {
    runs: runs.length,
    tasks: new Set(runs.map((run) => run.case)).size,
    success: report.summary.success,
    completion: report.summary.completion,
    unsafe: { runs: unsafe(injection), of: injection.length },
    categories,
    outcomes,
  };
}
