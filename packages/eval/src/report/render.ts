import { LAYERS } from '../attribution/types.js';
import { count, counted, duration, interval, pad, percent, usd } from './format.js';
import type { ReportSummary } from './summary.js';
import type { CaseRun, ReportMeta } from './types.js';

/** Most failure clusters and failed runs listed. */
const MAX_LISTED = 12;

function rateLine(label: string, rate: ReportSummary['success']): string {
  return `  ${pad(label, 12)}${rate.passed}/${rate.runs} = ${percent(rate.rate)}  95% CI ${interval(rate.interval)}`;
}

/**
 * The report for a terminal: success rate with its 95% Wilson interval, completion rate, latency
 * p50/p95, turns, tokens, cache hits, cost, per tag, per case (k/n, flaky, main failure), failure
 * clusters and the attributions of failed runs.
 */
export function renderReport(
  summary: ReportSummary,
  meta: ReportMeta,
  runs: readonly CaseRun[],
): string {
  const lines: string[] = [];
  const labels = Object.entries(meta.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  lines.push(
    `Eval: ${counted(summary.runs, 'run')} (${counted(summary.cases, 'case')} × ${counted(meta.repeats, 'repeat')}) in ${duration(meta.durationMs)}${labels ? ` · ${labels}` : ''}`,
  );
  lines.push(rateLine('success', summary.success));
  lines.push(
    `  ${pad('completion', 12)}${summary.completion.passed}/${summary.completion.runs} = ${percent(summary.completion.rate)}`,
  );
  lines.push(
    `  ${pad('latency', 12)}p50 ${duration(summary.latency.p50Ms)} · p95 ${duration(summary.latency.p95Ms)}`,
  );
  lines.push(
    `  ${pad('turns', 12)}${summary.turns.perRun.toFixed(1)} per run (${count(summary.turns.total)} total) · tools ${counted(summary.tools.calls, 'call')}, ${count(summary.tools.errors)} failed`,
  );
  const { tokens } = summary;
  lines.push(
    `  ${pad('tokens', 12)}in ${count(tokens.input)} · out ${count(tokens.output)} · cache read ${count(tokens.cacheRead)} · cache write ${count(tokens.cacheWrite)}`,
  );
  lines.push(`  ${pad('cache hits', 12)}${percent(summary.cacheHitRatio)} of prompt tokens`);
  lines.push(
    `  ${pad('cost', 12)}${usd(summary.cost.totalUsd)} (${usd(summary.cost.perRunUsd)} per run)`,
  );
  const layers = LAYERS.filter((layer) => summary.byLayer[layer] > 0);
  if (layers.length > 0)
    lines.push(
      `  ${pad('failures', 12)}${layers.map((layer) => `${layer} ${summary.byLayer[layer]}`).join(' · ')}`,
    );

  if (summary.byTag.length > 0) {
    lines.push('Per tag');
    const width = Math.max(...summary.byTag.map((tag) => tag.tag.length)) + 2;
    for (const tag of summary.byTag)
      lines.push(
        `  ${pad(tag.tag, width)}${tag.passed}/${tag.runs} = ${percent(tag.rate)} ${interval(tag.interval)}`,
      );
  }

  lines.push('Cases');
  const width = Math.max(...summary.byCase.map((item) => item.case.length)) + 2;
  for (const item of summary.byCase) {
    const mark = item.passed === item.runs ? '✓' : item.passed === 0 ? '✗' : '~';
    const notes = [
      item.flaky ? 'flaky' : '',
      item.completed < item.runs ? `${item.runs - item.completed} incomplete` : '',
      item.topRule ?? '',
    ].filter((note) => note !== '');
    lines.push(
      `  ${mark} ${pad(item.case, width)}${item.passed}/${item.runs}${notes.length ? `  ${notes.join(' · ')}` : ''}`,
    );
  }

  if (summary.clusters.length > 0) {
    lines.push('Failure clusters');
    for (const cluster of summary.clusters.slice(0, MAX_LISTED)) {
      lines.push(`  ${cluster.count}× ${cluster.rule}: ${cluster.example}`);
      lines.push(`      cases: ${cluster.cases.join(', ')}`);
    }
  }

  const failed = runs.filter((run) => run.attribution);
  if (failed.length > 0) {
    lines.push('Failed runs');
    for (const run of failed.slice(0, MAX_LISTED)) {
      const verdict = run.attribution;
      if (!verdict) continue;
      lines.push(
        `  ${run.case}#${run.repeat}  ${verdict.layer} (${verdict.confidence}) ${verdict.rule}: ${verdict.summary}`,
      );
      const first = verdict.evidence[0];
      if (first) {
        const where = [
          first.spanId && `span ${first.spanId}`,
          first.messageId && `message ${first.messageId}`,
          first.attribute,
        ]
          .filter(Boolean)
          .join(', ');
        lines.push(`      evidence${where ? ` (${where})` : ''}: ${first.excerpt}`);
      }
    }
    if (failed.length > MAX_LISTED) lines.push(`  … ${failed.length - MAX_LISTED} more`);
  }
  return lines.join('\n');
}
