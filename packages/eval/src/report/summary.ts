import type { TokenCounts } from '@mh/core';
import { percentile } from '@mh/core/internal';
import { clusterFailures, type FailureCluster } from '../attribution/cluster.js';
import { LAYERS, type Layer } from '../attribution/types.js';
import { type Interval, wilsonInterval } from './stats.js';
import type { CaseRun } from './types.js';

/** Passes out of runs, with the 95% Wilson interval. */
export interface RateSummary {
  /** Runs that passed. */
  readonly passed: number;
  /** Runs counted. */
  readonly runs: number;
  /** passed / runs (0 without runs). */
  readonly rate: number;
  /** 95% Wilson interval; undefined without runs. */
  readonly interval: Interval | undefined;
}

/** One case over its repeats. */
export interface CaseSummary extends RateSummary {
  /** The case's name. */
  readonly case: string;
  /** Its tags. */
  readonly tags: readonly string[];
  /** Runs that completed normally. */
  readonly completed: number;
  /** Both outcomes among its repeats. */
  readonly flaky: boolean;
  /** Failures attributed to infra (left out of regression maths). */
  readonly infraFailures: number;
  /** The most frequent failure rule, when it failed. */
  readonly topRule: string | undefined;
}

/** One tag over the runs of its cases. */
export interface TagSummary extends RateSummary {
  /** The tag. */
  readonly tag: string;
}

/** Everything a report says, computed from its runs. */
export interface ReportSummary {
  /** Sessions run. */
  readonly runs: number;
  /** Distinct cases. */
  readonly cases: number;
  /** Check passed (and completed) out of all runs; a run that threw counts as a failure. */
  readonly success: RateSummary;
  /** Completed normally out of all runs. */
  readonly completion: RateSummary;
  /** Session wall time percentiles (nearest rank), ms. */
  readonly latency: { readonly p50Ms: number | undefined; readonly p95Ms: number | undefined };
  /** Model calls, total and per run. */
  readonly turns: { readonly total: number; readonly perRun: number };
  /** Tool calls and failed tool calls. */
  readonly tools: { readonly calls: number; readonly errors: number };
  /** Tokens by kind, all runs. */
  readonly tokens: TokenCounts;
  /** Cache reads over all prompt tokens. */
  readonly cacheHitRatio: number;
  /** Cost, USD, total and per run. */
  readonly cost: { readonly totalUsd: number; readonly perRunUsd: number };
  /** Failures per layer. */
  readonly byLayer: Readonly<Record<Layer, number>>;
  /** Per tag, tags sorted. */
  readonly byTag: readonly TagSummary[];
  /** Per case, in the report's order. */
  readonly byCase: readonly CaseSummary[];
  /** Failure clusters, largest first. */
  readonly clusters: readonly FailureCluster[];
}

/** Passes out of runs with its interval. */
export function rateOf(passed: number, runs: number): RateSummary {
  return {
    passed,
    runs,
    rate: runs === 0 ? 0 : passed / runs,
    interval: wilsonInterval(passed, runs),
  };
}

function mostFrequent(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

function caseSummaries(runs: readonly CaseRun[]): CaseSummary[] {
  const byCase = new Map<string, CaseRun[]>();
  for (const run of runs) byCase.set(run.case, [...(byCase.get(run.case) ?? []), run]);
  return [...byCase].map(([name, list]) => {
    const passed = list.filter((run) => run.passed).length;
    return {
      case: name,
      tags: list[0]?.tags ?? [],
      ...rateOf(passed, list.length),
      completed: list.filter((run) => run.completed).length,
      flaky: passed > 0 && passed < list.length,
      infraFailures: list.filter((run) => run.attribution?.layer === 'infra').length,
      topRule: mostFrequent(list.flatMap((run) => (run.attribution ? [run.attribution.rule] : []))),
    };
  });
}

/** Summarises runs: rates with intervals, latency, turns, tokens, cost, per tag, clusters. */
export function summarise(runs: readonly CaseRun[]): ReportSummary {
  const count = runs.length;
  const sum = (pick: (run: CaseRun) => number): number =>
    runs.reduce((total, run) => total + pick(run), 0);
  const tokens: TokenCounts = {
    input: sum((run) => run.metrics.tokens.input),
    output: sum((run) => run.metrics.tokens.output),
    cacheRead: sum((run) => run.metrics.tokens.cacheRead),
    cacheWrite: sum((run) => run.metrics.tokens.cacheWrite),
  };
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  const durations = runs.map((run) => run.durationMs);
  const byLayer = Object.fromEntries(LAYERS.map((layer) => [layer, 0])) as Record<Layer, number>;
  for (const run of runs) if (run.attribution) byLayer[run.attribution.layer]++;
  const tags = [...new Set(runs.flatMap((run) => run.tags))].sort();
  const turns = sum((run) => run.metrics.turns);
  const cost = sum((run) => run.metrics.costUsd);
  return {
    runs: count,
    cases: new Set(runs.map((run) => run.case)).size,
    success: rateOf(runs.filter((run) => run.passed).length, count),
    completion: rateOf(runs.filter((run) => run.completed).length, count),
    latency: { p50Ms: percentile(durations, 50), p95Ms: percentile(durations, 95) },
    turns: { total: turns, perRun: count === 0 ? 0 : turns / count },
    tools: {
      calls: sum((run) => run.metrics.toolCalls),
      errors: sum((run) => run.metrics.toolErrors),
    },
    tokens,
    cacheHitRatio: prompt === 0 ? 0 : tokens.cacheRead / prompt,
    cost: { totalUsd: cost, perRunUsd: count === 0 ? 0 : cost / count },
    byLayer,
    byTag: tags.map((tag) => {
      const tagged = runs.filter((run) => run.tags.includes(tag));
      return { tag, ...rateOf(tagged.filter((run) => run.passed).length, tagged.length) };
    }),
    byCase: caseSummaries(runs),
    clusters: clusterFailures(
      runs.flatMap((run) =>
        run.attribution
          ? [{ case: run.case, repeat: run.repeat, attribution: run.attribution }]
          : [],
      ),
    ),
  };
}
