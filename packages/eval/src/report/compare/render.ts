import { duration, interval, pad, percent, usd } from '../format.js';
import type { CaseChange, ComparisonFindings, MetricChange, PooledChange } from './types.js';

function points(value: number): string {
  const rounded = (value * 100).toFixed(1);
  return `${value >= 0 ? '+' : ''}${rounded} pts`;
}

function side(rate: { passed: number; runs: number }): string {
  return `${rate.passed}/${rate.runs}`;
}

function caseLine(item: CaseChange, width: number): string {
  const notes = [
    item.flaky ? 'flaky' : '',
    item.current.infra > 0 ? `${item.current.infra} infra left out` : '',
    item.current.topRule ? `now: ${item.current.topRule}` : '',
  ].filter((note) => note !== '');
  return `  ${pad(item.case, width)}${side(item.baseline)} → ${side(item.current)}  (${points(item.delta)}, diff CI ${signedInterval(item)})${notes.length ? `  ${notes.join(' · ')}` : ''}`;
}

function signedInterval(item: { difference: CaseChange['difference'] }): string {
  const value = item.difference;
  if (!value) return '[–]';
  const fmt = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
  return `[${fmt(value.low)}, ${fmt(value.high)}]`;
}

function pooledLine(pooled: PooledChange, width: number): string {
  const mark = pooled.regressed ? '  REGRESSED' : pooled.improved ? '  improved' : '';
  return `  ${pad(pooled.scope, width)}${side(pooled.baseline)} ${percent(pooled.baseline.rate)} ${interval(pooled.baseline.interval)} → ${side(pooled.current)} ${percent(pooled.current.rate)} ${interval(pooled.current.interval)}  diff CI ${signedInterval(pooled)}${mark}`;
}

function metric(change: MetricChange, format: (value: number | undefined) => string): string {
  const relative =
    change.change === undefined
      ? ''
      : ` (${change.change >= 0 ? '+' : ''}${(change.change * 100).toFixed(1)}%)`;
  return `${format(change.baseline)} → ${format(change.current)}${relative}`;
}

/** The comparison for a terminal: verdict, pooled rates, regressed/improved/changed cases, cost, p95. */
export function renderComparison(comparison: ComparisonFindings, allowMissing: boolean): string {
  const lines: string[] = [];
  const gate =
    comparison.method === 'tolerance'
      ? `tolerance ${comparison.tolerance} per case`
      : 'interval (95% Newcombe difference) per case, tag and suite';
  lines.push(`Comparison with baseline — ${comparison.ok ? 'OK' : 'REGRESSED'} (gate: ${gate})`);
  for (const label of comparison.labels)
    lines.push(
      `  label ${label.key}: ${label.baseline ?? '(none)'} → ${label.current ?? '(none)'}`,
    );
  const scopeWidth = Math.max(...comparison.pooled.map((pooled) => pooled.scope.length)) + 2;
  for (const pooled of comparison.pooled) lines.push(pooledLine(pooled, scopeWidth));
  const width = Math.max(8, ...comparison.cases.map((item) => item.case.length)) + 2;
  const sections: [string, CaseChange['verdict']][] = [
    ['Regressed', 'regressed'],
    ['Improved', 'improved'],
    [
      comparison.method === 'tolerance' ? 'Changed within tolerance' : 'Changed, not significant',
      'changed',
    ],
    ['No verdict (only infra failures)', 'no-data'],
  ];
  for (const [title, verdict] of sections) {
    const items = comparison.cases.filter((item) => item.verdict === verdict);
    if (items.length === 0) continue;
    lines.push(`${title} (${items.length})`);
    for (const item of items) lines.push(caseLine(item, width));
  }
  if (comparison.missing.length > 0)
    lines.push(
      `Missing from this run${allowMissing ? ' (allowed)' : ''}: ${comparison.missing.join(', ')}`,
    );
  if (comparison.added.length > 0)
    lines.push(`New cases (not gated): ${comparison.added.join(', ')}`);
  const costNote = comparison.cost.regressed ? '  REGRESSED' : '';
  lines.push(
    `Cost per run ${metric(comparison.cost, (value) => (value === undefined ? '–' : usd(value)))}${costNote} · p95 ${metric(comparison.p95, duration)}`,
  );
  if (comparison.infraRuns.baseline + comparison.infraRuns.current > 0)
    lines.push(
      `Infra failures left out: ${comparison.infraRuns.baseline} in the baseline, ${comparison.infraRuns.current} now`,
    );
  return lines.join('\n');
}
