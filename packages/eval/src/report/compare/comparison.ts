import { ConfigError } from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { type Interval, newcombeInterval } from '../stats.js';
import { type RateSummary, rateOf } from '../summary.js';
import type { CaseRun } from '../types.js';
import { renderComparison } from './render.js';
import {
  type CaseChange,
  type CaseSide,
  COMPARE_METHODS,
  type ComparedReport,
  type CompareMethod,
  type CompareOptions,
  type ComparisonFindings,
  type MetricChange,
  type PooledChange,
} from './types.js';

// A rate difference within this of the tolerance is rounding (2/3 − 1 is −0.33333…).
const EPSILON = 1e-9;

function sideOf(runs: readonly CaseRun[]): CaseSide {
  const counted = runs.filter((run) => run.attribution?.layer !== 'infra');
  const rules = runs.flatMap((run) => (run.attribution ? [run.attribution.rule] : []));
  const counts = new Map<string, number>();
  for (const rule of rules) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  return {
    ...rateOf(counted.filter((run) => run.passed).length, counted.length),
    infra: runs.length - counted.length,
    topRule: [...counts].sort((a, b) => b[1] - a[1])[0]?.[0],
  };
}

function groupByCase(runs: readonly CaseRun[]): Map<string, CaseRun[]> {
  const groups = new Map<string, CaseRun[]>();
  for (const run of runs) groups.set(run.case, [...(groups.get(run.case) ?? []), run]);
  return groups;
}

function difference(baseline: RateSummary, current: RateSummary): Interval | undefined {
  return newcombeInterval({
    baseline: { successes: baseline.passed, trials: baseline.runs },
    current: { successes: current.passed, trials: current.runs },
  });
}

function metricChange(baseline: number | undefined, current: number | undefined): MetricChange {
  const change =
    baseline === undefined || current === undefined || baseline === 0
      ? undefined
      : current / baseline - 1;
  return { baseline, current, change };
}

function checkedOptions(options: CompareOptions): Required<
  Omit<CompareOptions, 'maxCostIncrease'>
> & {
  maxCostIncrease: number | undefined;
} {
  assertOptions(options, ['method', 'tolerance', 'maxCostIncrease', 'allowMissing'], 'options');
  const method = options.method ?? 'tolerance';
  if (!COMPARE_METHODS.includes(method))
    throw new ConfigError('options.method', `expected one of ${COMPARE_METHODS.join(', ')}`);
  const tolerance = options.tolerance ?? 0.34;
  if (typeof tolerance !== 'number' || !(tolerance >= 0 && tolerance <= 1))
    throw new ConfigError('options.tolerance', 'expected a number from 0 to 1');
  const maxCostIncrease = options.maxCostIncrease;
  if (
    maxCostIncrease !== undefined &&
    (typeof maxCostIncrease !== 'number' || !(maxCostIncrease >= 0))
  )
    throw new ConfigError('options.maxCostIncrease', 'expected a non-negative fraction');
  const allowMissing = options.allowMissing ?? false;
  if (typeof allowMissing !== 'boolean')
    throw new ConfigError('options.allowMissing', 'expected a boolean');
  return { method, tolerance, maxCostIncrease, allowMissing };
}

/** The outcome of comparing a run with a baseline. */
export class Comparison implements ComparisonFindings {
  /** The gate used. */
  readonly method: CompareMethod;
  /** The per-case tolerance. */
  readonly tolerance: number;
  /** Every case present in both, in the current run's order. */
  readonly cases: readonly CaseChange[];
  /** Cases of the baseline absent from the current run. */
  readonly missing: readonly string[];
  /** Cases new in the current run (not gated). */
  readonly added: readonly string[];
  /** The suite and each tag, pooled over the cases present in both. */
  readonly pooled: readonly PooledChange[];
  /** Mean cost per run. */
  readonly cost: MetricChange & { readonly regressed: boolean };
  /** p95 of session wall time, ms (reported, not gated: it is noise in a replay). */
  readonly p95: MetricChange;
  /** Labels that differ (model id, git sha, flags): the first thing to read when cases change. */
  readonly labels: readonly {
    readonly key: string;
    readonly baseline?: string;
    readonly current?: string;
  }[];
  /** Infra-attributed runs (baseline, current), left out of the maths. */
  readonly infraRuns: { readonly baseline: number; readonly current: number };
  /** Whether the gate passes. */
  readonly ok: boolean;
  readonly #allowMissing: boolean;

  constructor(
    init: Omit<Comparison, 'ok' | 'regressed' | 'improved' | 'render' | 'toJSON'> & {
      allowMissing: boolean;
    },
  ) {
    this.method = init.method;
    this.tolerance = init.tolerance;
    this.cases = init.cases;
    this.missing = init.missing;
    this.added = init.added;
    this.pooled = init.pooled;
    this.cost = init.cost;
    this.p95 = init.p95;
    this.labels = init.labels;
    this.infraRuns = init.infraRuns;
    this.#allowMissing = init.allowMissing;
    this.ok =
      this.regressed.length === 0 &&
      !(this.method === 'interval' && this.pooled.some((pooled) => pooled.regressed)) &&
      !this.cost.regressed &&
      (this.#allowMissing || this.missing.length === 0);
  }

  /** Cases that regressed under the gate. */
  get regressed(): readonly CaseChange[] {
    return this.cases.filter((item) => item.verdict === 'regressed');
  }

  /** Cases that improved under the gate. */
  get improved(): readonly CaseChange[] {
    return this.cases.filter((item) => item.verdict === 'improved');
  }

  /** The comparison for a terminal. */
  render(): string {
    return renderComparison(this, this.#allowMissing);
  }

  /** Plain data, for a JSON file or a CI annotation. */
  toJSON(): Record<string, unknown> {
    return {
      ok: this.ok,
      method: this.method,
      tolerance: this.tolerance,
      regressed: this.regressed.map((item) => item.case),
      improved: this.improved.map((item) => item.case),
      missing: this.missing,
      added: this.added,
      cases: this.cases,
      pooled: this.pooled,
      cost: this.cost,
      p95: this.p95,
      labels: this.labels,
      infraRuns: this.infraRuns,
    };
  }
}

/** Compares `current` with `baseline`; see `CompareOptions`. */
export function compareReports(
  baseline: ComparedReport,
  current: ComparedReport,
  options: CompareOptions = {},
): Comparison {
  for (const [field, report] of [
    ['baseline', baseline],
    ['current', current],
  ] as const) {
    if (
      report === null ||
      typeof report !== 'object' ||
      !Array.isArray(report.runs) ||
      !report.meta
    )
      throw new ConfigError(field, 'expected a Report (Report.load(path) reads one)');
  }
  const { method, tolerance, maxCostIncrease, allowMissing } = checkedOptions(options);
  const before = groupByCase(baseline.runs);
  const after = groupByCase(current.runs);
  const cases: CaseChange[] = [];
  for (const [name, runs] of after) {
    const old = before.get(name);
    if (!old) continue;
    const baselineSide = sideOf(old);
    const currentSide = sideOf(runs);
    const delta = currentSide.rate - baselineSide.rate;
    const interval = difference(baselineSide, currentSide);
    let verdict: CaseChange['verdict'];
    if (baselineSide.runs === 0 || currentSide.runs === 0) verdict = 'no-data';
    else if (method === 'tolerance')
      verdict =
        delta < -tolerance - EPSILON
          ? 'regressed'
          : delta > tolerance + EPSILON
            ? 'improved'
            : delta !== 0
              ? 'changed'
              : 'same';
    else
      verdict =
        interval && interval.high < 0
          ? 'regressed'
          : interval && interval.low > 0
            ? 'improved'
            : delta !== 0
              ? 'changed'
              : 'same';
    cases.push({
      case: name,
      baseline: baselineSide,
      current: currentSide,
      delta,
      difference: interval,
      verdict,
      flaky: currentSide.passed > 0 && currentSide.passed < currentSide.runs,
    });
  }
  const shared = new Set(cases.map((item) => item.case));
  const pool = (runs: readonly CaseRun[], tag?: string): RateSummary => {
    const counted = runs.filter(
      (run) =>
        shared.has(run.case) &&
        run.attribution?.layer !== 'infra' &&
        (tag === undefined || run.tags.includes(tag)),
    );
    return rateOf(counted.filter((run) => run.passed).length, counted.length);
  };
  const tags = [
    ...new Set(current.runs.filter((run) => shared.has(run.case)).flatMap((run) => run.tags)),
  ].sort();
  const pooled = [undefined, ...tags].map((tag): PooledChange => {
    const baselineRate = pool(baseline.runs, tag);
    const currentRate = pool(current.runs, tag);
    const interval = difference(baselineRate, currentRate);
    return {
      scope: tag === undefined ? 'suite' : `tag:${tag}`,
      baseline: baselineRate,
      current: currentRate,
      difference: interval,
      regressed: interval !== undefined && interval.high < 0,
      improved: interval !== undefined && interval.low > 0,
    };
  });
  const cost = metricChange(baseline.summary.cost.perRunUsd, current.summary.cost.perRunUsd);
  const costBefore = cost.baseline ?? 0;
  const costAfter = cost.current ?? 0;
  const costRegressed =
    maxCostIncrease !== undefined && costAfter > costBefore * (1 + maxCostIncrease) + EPSILON;
  const keys = [
    ...new Set([...Object.keys(baseline.meta.labels), ...Object.keys(current.meta.labels)]),
  ].sort();
  return new Comparison({
    method,
    tolerance,
    cases,
    missing: [...before.keys()].filter((name) => !after.has(name)),
    added: [...after.keys()].filter((name) => !before.has(name)),
    pooled,
    cost: { ...cost, regressed: costRegressed },
    p95: metricChange(baseline.summary.latency.p95Ms, current.summary.latency.p95Ms),
    labels: keys
      .filter((key) => baseline.meta.labels[key] !== current.meta.labels[key])
      .map((key) => ({
        key,
        baseline: baseline.meta.labels[key],
        current: current.meta.labels[key],
      })),
    infraRuns: {
      baseline: baseline.runs.filter((run) => run.attribution?.layer === 'infra').length,
      current: current.runs.filter((run) => run.attribution?.layer === 'infra').length,
    },
    allowMissing,
  });
}
