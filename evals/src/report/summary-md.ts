import { type Comparison, type Report, wilsonInterval } from '@mh/eval';
import type { Task } from '../tasks/task.js';
import { count, duration, percent, percentRange, table, usd } from './format.js';
import { resultStatement } from './result-statement.js';
import { type SuiteNumbers, suiteNumbers } from './suite-numbers.js';

/** Everything summary.md is written from. */
export interface SummaryInput {
  readonly dryRun: boolean;
  readonly model: string;
  readonly repeats: number;
  readonly tasks: readonly Task[];
  readonly report: Report;
  /** Flags and facts of the run (provider, seed, cache, compaction, defence, system prompt…). */
  readonly facts: readonly (readonly [string, string])[];
  /** The model's price was known (from the table or the flags). */
  readonly priced: boolean;
  /** Whether tool results were fenced (the prompt-injection defence). */
  readonly fencing: boolean;
  /** The comparison with a saved baseline, and that baseline's path. */
  readonly baseline?: { readonly path: string; readonly comparison: Comparison };
  /** Wall time of the whole run, ms. */
  readonly wallMs: number;
}

const DRY_RUN_BANNER = [
  '> **DRY RUN.** A scripted oracle played every task offline: the Agent, the tools (on the',
  '> generated files), compaction, the injection defence, grading and this report all ran for real,',
  '> but no model did. These numbers show that the pipeline works; they say nothing about any',
  '> model, and no result statement is written for a dry run.',
];

function header(input: SummaryInput): string[] {
  const mark = input.dryRun ? 'DRY RUN: ' : '';
  const who = input.dryRun ? 'scripted oracle' : input.model;
  return [
    `# ${mark}${who} on the read-only workspace suite`,
    '',
    ...(input.dryRun ? [...DRY_RUN_BANNER, ''] : []),
    ...input.facts.map(([key, value]) => `- ${key}: ${value}`),
    `- wall time of the run: ${duration(input.wallMs)}`,
    '',
  ];
}

function successSection(numbers: SuiteNumbers, mark: string): string[] {
  const row = (
    name: string,
    tasks: number,
    success: SuiteNumbers['success'],
    completion: SuiteNumbers['completion'],
    unsafe: string,
  ): string[] => [
    name,
    String(tasks),
    `${success.passed}/${success.runs} (${percent(success.rate)})`,
    percentRange(success.interval),
    `${completion.passed}/${completion.runs}`,
    unsafe,
  ];
  const unsafeAll = numbers.unsafe.of > 0 ? `${numbers.unsafe.runs}/${numbers.unsafe.of}` : '–';
  return [
    `## Success${mark}`,
    '',
    ...table(
      ['', 'tasks', 'success', '95% CI (Wilson)', 'completed', 'unsafe'],
      [
        row('all', numbers.tasks, numbers.success, numbers.completion, unsafeAll),
        ...numbers.categories.map((category) =>
          row(
            category.category,
            category.tasks,
            category.success,
            category.completion,
            category.category === 'injection' ? `${category.unsafe}/${category.success.runs}` : '–',
          ),
        ),
      ],
    ),
    '',
    'Success is a correct final `ANSWER:` line in a run that ended normally; a run that threw or',
    'hit a guard counts as a failure. `unsafe` counts runs that followed a planted instruction',
    '(judged before, and apart from, right or wrong).',
    '',
  ];
}

function casesSection(input: SummaryInput, numbers: SuiteNumbers, mark: string): string[] {
  const summaries = new Map(input.report.summary.byCase.map((entry) => [entry.case, entry]));
  const rows = input.tasks.flatMap((task) => {
    const summary = summaries.get(task.id);
    if (!summary) return [];
    return [
      [
        task.id,
        task.category,
        `${summary.passed}/${summary.runs}`,
        (numbers.outcomes.get(task.id) ?? []).join(' '),
        summary.flaky ? 'flaky' : '',
        summary.topRule ?? '',
      ],
    ];
  });
  const allPassed = input.report.summary.byCase.filter(
    (entry) => entry.passed === entry.runs,
  ).length;
  return [
    `## Tasks${mark}`,
    '',
    ...table(
      ['task', 'category', 'passed', 'outcome per repeat', 'flaky', 'top failure rule'],
      rows,
    ),
    '',
    `Tasks solved in every repeat: ${allPassed}/${numbers.tasks}.`,
    '',
  ];
}

function usageSection(input: SummaryInput, mark: string): string[] {
  const summary = input.report.summary;
  const tokens = summary.tokens;
  const compactions = input.report.runs.reduce((sum, run) => sum + run.metrics.compactions, 0);
  const cost = input.priced
    ? `${usd(summary.cost.totalUsd)} in total, ${usd(summary.cost.perRunUsd)} per run`
    : 'unknown: no price for this model (give --price-in and --price-out)';
  return [
    `## Tokens, cache, cost, latency${mark}`,
    '',
    `- tokens: ${count(tokens.input)} input, ${count(tokens.output)} output, ${count(tokens.cacheRead)} cache read, ${count(tokens.cacheWrite)} cache write`,
    `- cache hits: ${percent(summary.cacheHitRatio)} of prompt tokens read from the cache`,
    `- cost (from the spans): ${cost}`,
    `- model calls: ${count(summary.turns.total)} (${summary.turns.perRun.toFixed(1)} per run); tool calls: ${count(summary.tools.calls)}, ${count(summary.tools.errors)} failed; compactions: ${compactions}`,
    `- session latency: p50 ${duration(summary.latency.p50Ms)}, p95 ${duration(summary.latency.p95Ms)}`,
    '',
  ];
}

function baselineSection(input: SummaryInput, mark: string): string[] {
  if (!input.baseline)
    return [
      `## Baseline${mark}`,
      '',
      'No saved baseline for this run. To make this run the baseline of its model, copy its',
      '`report.json` to `evals/baselines/<model>.json` (`dry-run.json` for dry runs), or pass',
      '`--baseline PATH` to compare with any saved report.',
      '',
    ];
  const { comparison, path } = input.baseline;
  return [
    `## Baseline${mark}`,
    '',
    `Compared with \`${path}\` (per-task and pooled differences with Newcombe 95% intervals; a`,
    'change counts only when its interval excludes zero):',
    '',
    '```text',
    comparison.render().trimEnd(),
    '```',
    '',
  ];
}

function limitsSection(numbers: SuiteNumbers, repeats: number): string[] {
  const width = numbers.success.interval
    ? Math.round((numbers.success.interval.high - numbers.success.interval.low) * 100)
    : undefined;
  const all = wilsonInterval(repeats, repeats);
  const injections = numbers.categories.find((category) => category.category === 'injection');
  return [
    '## What these numbers can and cannot show',
    '',
    `- ${numbers.runs} runs in all: the 95% interval of the overall success rate is ${width === undefined ? 'undefined' : `${width} points wide`}. A difference between two runs of the suite smaller than their intervals is not evidence of a change.`,
    `- ${repeats} repeat${repeats === 1 ? '' : 's'} per task: a task's rate moves in steps of ${percent(1 / repeats)}, and even ${repeats}/${repeats} has a 95% interval of ${percentRange(all)}. Per-task rows show flakiness, not significant differences.`,
    `- The tasks are synthetic, read-only and small (${numbers.tasks} task${numbers.tasks === 1 ? '' : 's'} over one generated workspace). They show how this harness and model handle these tasks, not general coding or agent ability.`,
    ...(numbers.categories.some((category) => category.category === 'context')
      ? [
          "- The context tasks use an artificially small context window to force compaction; they measure the harness's compaction with this model, not the model's long-context ability.",
        ]
      : []),
    ...(injections
      ? [
          `- Injection results count only the ${injections.tasks} planted instruction${injections.tasks === 1 ? '' : 's'} of this workspace; they are not a measure of robustness to injection in general.`,
        ]
      : []),
    '',
  ];
}

/** summary.md: run facts, success with Wilson intervals, tasks, usage, baseline, limits. */
export function renderSummary(input: SummaryInput): string {
  const numbers = suiteNumbers(input.report, input.tasks);
  const mark = input.dryRun ? ' (DRY RUN)' : '';
  const summary = input.report.summary;
  const tokens =
    summary.tokens.input +
    summary.tokens.output +
    summary.tokens.cacheRead +
    summary.tokens.cacheWrite;
  const statement = input.dryRun
    ? []
    : [
        '## Result',
        '',
        resultStatement(numbers, {
          model: input.model,
          repeats: input.repeats,
          costUsd: input.priced ? summary.cost.totalUsd : undefined,
          tokens,
          fencing: input.fencing,
        }),
        '',
      ];
  return [
    ...header(input),
    ...statement,
    ...successSection(numbers, mark),
    ...casesSection(input, numbers, mark),
    ...usageSection(input, mark),
    ...baselineSection(input, mark),
    ...limitsSection(numbers, input.repeats),
    '## Files',
    '',
    '- `report.json`: every run as `@mh/eval` reports it (load it with `Report.load` to compare).',
    "- `runs/<task>/repeat-<n>/run.json`: the grade, the runner's record and every prompt's messages and compactions; `spans.json` beside it holds the run's spans.",
    '',
  ].join('\n');
}
