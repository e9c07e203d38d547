import type { FailureCluster } from '../../attribution/cluster.js';
import { LAYERS } from '../../attribution/types.js';
import type { ComparisonFindings } from '../compare/types.js';
import { count, counted, duration, interval, percent, usd } from '../format.js';
import type { RateSummary, ReportSummary } from '../summary.js';
import type { CaseRun, ReportMeta } from '../types.js';
import { REPORT_CSP, REPORT_CSS, REPORT_SCRIPT } from './assets.js';
import { comparisonSection } from './comparison.js';
import { html, rawHtml, type SafeHtml } from './kit.js';
import { evidenceItem, failedRun, runAnchor } from './trace.js';

/** Most member links shown per failure cluster. */
const MAX_CLUSTER_LINKS = 12;

function rateCells(rate: RateSummary): SafeHtml {
  return html`<td>${rate.passed}/${rate.runs}</td><td>${percent(rate.rate)}</td><td>${interval(rate.interval)}</td><td><meter min="0" max="1" low="0.5" high="0.9" optimum="1" value="${rate.rate}">${percent(rate.rate)}</meter></td>`;
}

function overview(summary: ReportSummary): SafeHtml {
  const layers = LAYERS.filter((layer) => summary.byLayer[layer] > 0);
  const rows: [string, SafeHtml | string][] = [
    [
      'success',
      html`${summary.success.passed}/${summary.success.runs} = <strong>${percent(summary.success.rate)}</strong>, 95% CI ${interval(summary.success.interval)}`,
    ],
    [
      'completion',
      `${summary.completion.passed}/${summary.completion.runs} = ${percent(summary.completion.rate)}`,
    ],
    ['latency', `p50 ${duration(summary.latency.p50Ms)} · p95 ${duration(summary.latency.p95Ms)}`],
    [
      'turns',
      `${summary.turns.perRun.toFixed(1)} per run (${count(summary.turns.total)} total) · tools ${counted(summary.tools.calls, 'call')}, ${count(summary.tools.errors)} failed`,
    ],
    [
      'tokens',
      `in ${count(summary.tokens.input)} · out ${count(summary.tokens.output)} · cache read ${count(summary.tokens.cacheRead)} · cache write ${count(summary.tokens.cacheWrite)}`,
    ],
    ['cache hits', `${percent(summary.cacheHitRatio)} of prompt tokens`],
    ['cost', `${usd(summary.cost.totalUsd)} (${usd(summary.cost.perRunUsd)} per run)`],
    [
      'failures',
      layers.length === 0
        ? 'none'
        : html`${layers.map((layer) => html`<span class="layer layer-${layer}">${layer}</span> ${summary.byLayer[layer]} `)}`,
    ],
  ];
  return html`<section id="summary"><h2>Summary</h2><table><tbody>${rows.map(([key, value]) => html`<tr><th>${key}</th><td>${value}</td></tr>`)}</tbody></table></section>`;
}

function tagSection(summary: ReportSummary): SafeHtml {
  if (summary.byTag.length === 0) return html``;
  return html`<section id="tags"><h2>Per tag</h2><table><thead><tr><th>tag</th><th>passed</th><th>rate</th><th>95% Wilson interval</th><th></th></tr></thead><tbody>${summary.byTag.map((tag) => html`<tr class="tag-row" data-tag="${tag.tag}"><td>${tag.tag}</td>${rateCells(tag)}</tr>`)}</tbody></table></section>`;
}

function caseSection(summary: ReportSummary): SafeHtml {
  return html`<section id="cases"><h2>Cases</h2><form id="filters" hidden><input type="search" placeholder="filter by case name" aria-label="filter by case name"><label><input type="checkbox"> failing only</label></form><table><thead><tr><th>case</th><th>tags</th><th>passed</th><th>rate</th><th>95% Wilson interval</th><th></th><th>completed</th><th>main failure</th></tr></thead><tbody>${summary.byCase.map(
    (item) => {
      const outcome = item.passed === item.runs ? 'pass' : item.flaky ? 'flaky' : 'fail';
      return html`<tr class="case-row outcome-${outcome}" data-case="${item.case}" data-outcome="${outcome}"><td>${item.case}${item.flaky && html` <span class="tag">flaky</span>`}</td><td>${item.tags.map((tag) => html`<span class="tag">${tag}</span>`)}</td>${rateCells(item)}<td>${item.completed}/${item.runs}</td><td>${item.topRule ?? ''}${item.infraFailures > 0 && html` <span class="muted">(${item.infraFailures} infra)</span>`}</td></tr>`;
    },
  )}</tbody></table></section>`;
}

function clusterSection(clusters: readonly FailureCluster[], failed: readonly CaseRun[]): SafeHtml {
  if (clusters.length === 0) return html``;
  return html`<section id="clusters"><h2>Failure clusters</h2><table><thead><tr><th>runs</th><th>layer</th><th>rule</th><th>cases</th><th>example and evidence</th></tr></thead><tbody>${clusters.map(
    (cluster) => {
      const members = failed.flatMap((run, index) =>
        run.attribution?.layer === cluster.layer && run.attribution.signature === cluster.signature
          ? [{ run, index }]
          : [],
      );
      const first = members[0];
      const evidence = first?.run.attribution?.evidence ?? [];
      return html`<tr class="cluster-row" data-layer="${cluster.layer}"><td>${cluster.count}</td><td><span class="layer layer-${cluster.layer}">${cluster.layer}</span></td><td><code>${cluster.rule}</code></td><td>${cluster.cases.join(', ')}</td><td>${cluster.example}${first && evidence.length > 0 && html`<ul class="evidence">${evidence.slice(0, 3).map((item) => evidenceItem(item, first.run, first.index))}</ul>`}<div class="muted">runs: ${members.slice(0, MAX_CLUSTER_LINKS).map(({ run, index }, position) => html`${position > 0 && ', '}<a href="#${runAnchor(index)}">${run.case}#${run.repeat}</a>`)}${members.length > MAX_CLUSTER_LINKS && ` … ${members.length - MAX_CLUSTER_LINKS} more`}</div></td></tr>`;
    },
  )}</tbody></table></section>`;
}

/**
 * The report as one self-contained HTML page: summary, pass rates with 95% Wilson intervals per
 * tag and per case, failure clusters with their layer and evidence, the baseline comparison when
 * given, and every failed run with its verdict, span tree and conversation in `<details>` (the
 * first one open). It loads nothing: no external CSS, script, font or image, and a CSP that
 * forbids any fetch. Every string from a case, a model or a tool is escaped. JavaScript only adds
 * filtering; the page reads the same without it.
 */
export function renderHtmlReport(
  summary: ReportSummary,
  meta: ReportMeta,
  runs: readonly CaseRun[],
  comparison?: ComparisonFindings,
  title = 'Eval report',
): string {
  const failed = runs.filter((run) => !run.passed);
  const labels = Object.entries(meta.labels);
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${rawHtml(REPORT_CSS)}</style></head>
<body><header><h1>${title}</h1><p class="muted">${counted(summary.runs, 'run')} (${counted(summary.cases, 'case')} × ${counted(meta.repeats, 'repeat')}) in ${duration(meta.durationMs)} · started ${meta.startedAt} · concurrency ${meta.concurrency}${labels.map(([key, value]) => html` · <code>${key}</code>=${value}`)}</p></header>
<main>${overview(summary)}${comparison && comparisonSection(comparison)}${tagSection(summary)}${caseSection(summary)}${clusterSection(summary.clusters, failed)}<section id="failed-runs"><h2>Failed runs (${failed.length})</h2>${failed.length === 0 ? html`<p>Every run passed.</p>` : failed.map((run, index) => failedRun(run, index, index === 0))}</section></main>
<script>${rawHtml(REPORT_SCRIPT)}</script></body></html>
`;
  return page.value;
}
