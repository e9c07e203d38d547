import type { CaseChange, ComparisonFindings, MetricChange } from '../compare/types.js';
import { duration, interval, percent, usd } from '../format.js';
import type { Interval } from '../stats.js';
import { html, type SafeHtml } from './kit.js';

function signed(value: Interval | undefined): string {
  if (!value) return '[–]';
  const format = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
  return `[${format(value.low)}, ${format(value.high)}] pts`;
}

function relative(change: MetricChange): string {
  if (change.change === undefined) return '–';
  return `${change.change >= 0 ? '+' : ''}${(change.change * 100).toFixed(1)}%`;
}

function caseTable(
  title: string,
  verdict: CaseChange['verdict'],
  items: readonly CaseChange[],
): SafeHtml {
  const rows = items.filter((item) => item.verdict === verdict);
  if (rows.length === 0) return html``;
  return html`<h3>${title} (${rows.length})</h3><table class="change-table" data-verdict="${verdict}"><thead><tr><th>case</th><th>baseline</th><th>current</th><th>change</th><th>95% CI of the difference</th><th>now failing by</th></tr></thead><tbody>${rows.map(
    (item) =>
      html`<tr class="change-row change-${verdict}" data-case="${item.case}"><td>${item.case}${item.flaky && html` <span class="tag">flaky</span>`}</td><td>${item.baseline.passed}/${item.baseline.runs}</td><td>${item.current.passed}/${item.current.runs}</td><td class="${item.delta < 0 ? 'bad' : item.delta > 0 ? 'good' : ''}">${item.delta >= 0 ? '+' : ''}${(item.delta * 100).toFixed(1)} pts</td><td>${signed(item.difference)}</td><td>${item.current.topRule ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * The baseline comparison: the gate's verdict, changed labels, pooled rates (suite and tags),
 * regressed, improved and changed cases, missing and new cases, cost per run and p95 latency.
 */
export function comparisonSection(comparison: ComparisonFindings): SafeHtml {
  const gate =
    comparison.method === 'tolerance'
      ? `tolerance ${comparison.tolerance} per case`
      : 'interval (95% Newcombe difference) per case, tag and suite';
  return html`<section id="baseline"><h2>Baseline comparison <span class="verdict ${comparison.ok ? 'good' : 'bad'}">${comparison.ok ? 'OK' : 'REGRESSED'}</span></h2><p class="muted">gate: ${gate}</p>${
    comparison.labels.length > 0 &&
    html`<ul class="labels">${comparison.labels.map((label) => html`<li>label <code>${label.key}</code>: ${label.baseline ?? '(none)'} → ${label.current ?? '(none)'}</li>`)}</ul>`
  }<table id="metric-changes"><thead><tr><th>metric</th><th>baseline</th><th>current</th><th>change</th></tr></thead><tbody><tr class="metric-row" data-metric="cost"><td>cost per run</td><td>${comparison.cost.baseline === undefined ? '–' : usd(comparison.cost.baseline)}</td><td>${comparison.cost.current === undefined ? '–' : usd(comparison.cost.current)}</td><td class="${comparison.cost.regressed ? 'bad' : ''}">${relative(comparison.cost)}${comparison.cost.regressed && ' (over the limit)'}</td></tr><tr class="metric-row" data-metric="p95"><td>p95 latency</td><td>${duration(comparison.p95.baseline)}</td><td>${duration(comparison.p95.current)}</td><td>${relative(comparison.p95)}</td></tr></tbody></table><table id="pooled"><thead><tr><th>scope</th><th>baseline</th><th>current</th><th>95% CI of the difference</th><th></th></tr></thead><tbody>${comparison.pooled.map(
    (pooled) =>
      html`<tr class="pooled-row"><td>${pooled.scope}</td><td>${pooled.baseline.passed}/${pooled.baseline.runs} = ${percent(pooled.baseline.rate)} ${interval(pooled.baseline.interval)}</td><td>${pooled.current.passed}/${pooled.current.runs} = ${percent(pooled.current.rate)} ${interval(pooled.current.interval)}</td><td>${signed(pooled.difference)}</td><td>${pooled.regressed ? html`<span class="bad">regressed</span>` : pooled.improved ? html`<span class="good">improved</span>` : ''}</td></tr>`,
  )}</tbody></table>${caseTable('Regressed', 'regressed', comparison.cases)}${caseTable('Improved', 'improved', comparison.cases)}${caseTable(comparison.method === 'tolerance' ? 'Changed within tolerance' : 'Changed, not significant', 'changed', comparison.cases)}${caseTable('No verdict (only infra failures)', 'no-data', comparison.cases)}${
    comparison.missing.length > 0 &&
    html`<p class="bad">Missing from this run: ${comparison.missing.join(', ')}</p>`
  }${comparison.added.length > 0 && html`<p>New cases (not gated): ${comparison.added.join(', ')}</p>`}</section>`;
}
