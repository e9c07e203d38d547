import type { Interval } from '../stats.js';
import type { RateSummary, ReportSummary } from '../summary.js';
import type { CaseRun, ReportMeta } from '../types.js';

/** How `compare` decides that a case regressed. */
export const COMPARE_METHODS = ['tolerance', 'interval'] as const;
/** How `compare` decides that a case regressed. */
export type CompareMethod = (typeof COMPARE_METHODS)[number];

/** Options of `Report.compare`. */
export interface CompareOptions {
  /**
   * `tolerance` (default): a case regressed when its pass rate fell by more than `tolerance`.
   * `interval`: a case, a tag or the whole suite regressed only when the 95% Newcombe interval of
   * the difference in pass rate lies entirely below zero (significant evidence of a drop).
   */
  readonly method?: CompareMethod;
  /**
   * Largest tolerated drop of a case's pass rate (default 0.34: with 3 repeats one flip in three
   * passes, two do not). With `method: 'interval'` it only separates "changed" from "same".
   * Use 0 with deterministic replays (1 repeat): any change is a finding.
   */
  readonly tolerance?: number;
  /** Fail when the mean cost per run rose by more than this fraction (e.g. 0.1); off by default. */
  readonly maxCostIncrease?: number;
  /** Let cases of the baseline be missing from the current run (default false: that fails). */
  readonly allowMissing?: boolean;
}

/** One side of a case's comparison: infra-attributed runs are left out (they say nothing of the harness). */
export interface CaseSide extends RateSummary {
  /** Runs attributed to infra, left out of `passed`/`runs`. */
  readonly infra: number;
  /** The most frequent failure rule. */
  readonly topRule: string | undefined;
}

/** What happened to one case. */
export interface CaseChange {
  /** The case's name. */
  readonly case: string;
  /** The baseline's counts. */
  readonly baseline: CaseSide;
  /** This run's counts. */
  readonly current: CaseSide;
  /** current rate − baseline rate. */
  readonly delta: number;
  /** 95% Newcombe interval of the difference; undefined when a side has no counted runs. */
  readonly difference: Interval | undefined;
  /** `no-data` when a side has only infra failures. */
  readonly verdict: 'regressed' | 'improved' | 'changed' | 'same' | 'no-data';
  /** Both outcomes among the current repeats. */
  readonly flaky: boolean;
}

/** The pooled comparison of the suite or of one tag. */
export interface PooledChange {
  /** `suite`, or `tag:<name>`. */
  readonly scope: string;
  /** The baseline's pooled rate. */
  readonly baseline: RateSummary;
  /** This run's pooled rate. */
  readonly current: RateSummary;
  /** 95% Newcombe interval of current − baseline; undefined when a side has no runs. */
  readonly difference: Interval | undefined;
  /** The difference interval lies below zero. */
  readonly regressed: boolean;
  /** The difference interval lies above zero. */
  readonly improved: boolean;
}

/** A before/after pair of a number, with the relative change. */
export interface MetricChange {
  /** The baseline's value. */
  readonly baseline: number | undefined;
  /** This run's value. */
  readonly current: number | undefined;
  /** current / baseline − 1; undefined when either is unknown or the baseline is 0. */
  readonly change: number | undefined;
}

/**
 * What a comparison found, as the terminal and HTML renderers read it. `Comparison` holds these
 * fields; the renderers take this shape so they need not import the class that calls them.
 */
export interface ComparisonFindings {
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
  /** p95 of session wall time, ms. */
  readonly p95: MetricChange;
  /** Labels that differ (model id, git sha, flags). */
  readonly labels: readonly {
    readonly key: string;
    readonly baseline?: string;
    readonly current?: string;
  }[];
  /** Infra-attributed runs (baseline, current), left out of the maths. */
  readonly infraRuns: { readonly baseline: number; readonly current: number };
  /** Whether the gate passes. */
  readonly ok: boolean;
}

/**
 * What `compareReports` reads of a report: its runs, meta and summary. A `Report` is one; the
 * comparison names this shape rather than the class, whose `compare` method calls it.
 */
export interface ComparedReport {
  /** Every session, ordered by case then repeat. */
  readonly runs: readonly CaseRun[];
  /** When and how it ran. */
  readonly meta: ReportMeta;
  /** The report's summary. */
  readonly summary: ReportSummary;
}
