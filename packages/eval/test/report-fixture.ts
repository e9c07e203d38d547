// Plain CaseRun records for report and comparison tests.
import type { Attribution, Layer } from '../src/attribution/types.js';
import { Report } from '../src/report/report.js';
import type { CaseRun, ReportMeta } from '../src/report/types.js';

/** A session record; failures get an attribution to `layer` (default model). */
export function caseRun(
  name: string,
  repeat: number,
  passed: boolean,
  extra: Partial<CaseRun> & { layer?: Layer; costUsd?: number; durationMs?: number } = {},
): CaseRun {
  const { layer = 'model', costUsd = 0.001, durationMs = 100, ...rest } = extra;
  const rule = layer === 'infra' ? 'infra/provider-error' : `${layer}/wrong-answer`;
  const attribution: Attribution = {
    layer,
    rule,
    confidence: 'low',
    summary: `${rule} in ${name}`,
    evidence: [{ excerpt: 'the answer was 41' }],
    signature: `${rule} |  | wrong answer`,
  };
  return {
    case: name,
    repeat,
    tags: [],
    status: passed ? 'completed' : layer === 'infra' ? 'error' : 'completed',
    completed: passed || layer !== 'infra',
    passed,
    answer: passed ? '42' : '41',
    durationMs,
    metrics: {
      runs: 1,
      turns: 2,
      toolCalls: 1,
      toolErrors: 0,
      compactions: 0,
      tokens: { input: 100, output: 20, cacheRead: 50, cacheWrite: 0 },
      cacheHitRatio: 50 / 150,
      costUsd,
    },
    ...(passed ? {} : { attribution }),
    ...rest,
  };
}

/** Runs of one case: `passes` passing runs out of `repeats`. */
export function caseRuns(
  name: string,
  passes: number,
  repeats = 3,
  extra: Parameters<typeof caseRun>[3] = {},
): CaseRun[] {
  return Array.from({ length: repeats }, (_, repeat) =>
    caseRun(name, repeat, repeat < passes, extra),
  );
}

export const META: ReportMeta = {
  startedAt: '2026-01-01T00:00:00.000Z',
  repeats: 3,
  concurrency: 4,
  durationMs: 1234,
  labels: { model: 'fixture-model' },
};

/** A report of `runs`. */
export function reportOf(runs: readonly CaseRun[], meta: Partial<ReportMeta> = {}): Report {
  return new Report(runs, { ...META, ...meta });
}
