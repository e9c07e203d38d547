import type { Evidence } from '../../attribution/types.js';
import { duration } from '../format.js';
import type { RunTrace, TraceMessage, TraceSpan } from '../trace.js';
import type { CaseRun } from '../types.js';
import { html, type SafeHtml } from './kit.js';

/** Attributes shown on a span's line; the rest are behind its disclosure. */
const HEADLINE_ATTRIBUTES = [
  'gen_ai.request.model',
  'gen_ai.tool.name',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'mh.run.status',
  'mh.guard',
  'error.type',
] as const;

/** The anchor of a failed run in the page (ids stay ASCII whatever the case is called). */
export function runAnchor(index: number): string {
  return `run-${index}`;
}

function spanLine(span: TraceSpan): SafeHtml {
  const headline = HEADLINE_ATTRIBUTES.flatMap((key) =>
    span.attributes[key] === undefined ? [] : [`${key.split('.').at(-1)}=${span.attributes[key]}`],
  );
  return html`<span class="span-name">${span.name}</span> <span class="muted">${duration(span.durationMs)}</span>${span.status === 'error' && html` <span class="bad">error</span>`} <span class="muted">${headline.join(' · ')}</span>`;
}

/** The anchor of a span of failed run `index` in the page. */
export function spanAnchor(index: number, spanId: string): string {
  return `${runAnchor(index)}-span-${spanId}`;
}

function spanNode(
  span: TraceSpan,
  children: Map<string | undefined, TraceSpan[]>,
  index: number,
): SafeHtml {
  const kids = children.get(span.spanId) ?? [];
  const attributes = Object.entries(span.attributes);
  return html`<li class="span${span.status === 'error' ? ' span-error' : ''}" id="${spanAnchor(index, span.spanId)}"><details><summary>${spanLine(span)}</summary><table class="attrs"><tbody>${attributes.map(([key, value]) => html`<tr><th>${key}</th><td><pre>${String(value)}</pre></td></tr>`)}${span.events.length > 0 && html`<tr><th>events</th><td>${span.events.join(', ')}</td></tr>`}</tbody></table></details>${kids.length > 0 && html`<ul>${kids.map((kid) => spanNode(kid, children, index))}</ul>`}</li>`;
}

/** The span tree: roots are spans whose parent is not in the trace. */
function spanTree(trace: RunTrace, index: number): SafeHtml {
  const ids = new Set(trace.spans.map((span) => span.spanId));
  const children = new Map<string | undefined, TraceSpan[]>();
  for (const span of trace.spans) {
    const parent =
      span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const roots = children.get(undefined) ?? [];
  if (roots.length === 0)
    return html`<p class="muted">No spans (the agent ignored the tracer).</p>`;
  return html`<ul class="tree">${roots.map((root) => spanNode(root, children, index))}</ul>${trace.omitted.spans > 0 && html`<p class="muted">${trace.omitted.spans} more spans left out.</p>`}`;
}

function message(item: TraceMessage): SafeHtml {
  return html`<li class="message role-${item.role}"><div class="role">${item.role} <span class="muted">${item.id}</span></div>${item.blocks.map(
    (block) =>
      html`<div class="block block-${block.type}${block.isError ? ' block-error' : ''}">${block.type === 'tool_use' && html`<div class="muted">→ ${block.name} (${block.callId})</div>`}${block.type === 'tool_result' && html`<div class="muted">← ${block.callId}${block.isError && ' · error'}</div>`}<pre>${block.text}</pre></div>`,
  )}</li>`;
}

function conversation(trace: RunTrace): SafeHtml {
  if (trace.messages.length === 0)
    return html`<p class="muted">No conversation (no run ended).</p>`;
  return html`${trace.omitted.messages > 0 && html`<p class="muted">${trace.omitted.messages} older messages left out.</p>`}<ol class="messages">${trace.messages.map(message)}</ol>`;
}

/** Where a piece of evidence sits: span, message, attribute (empty when unknown). */
function where(item: Evidence): string {
  return [
    item.spanId && `span ${item.spanId}`,
    item.messageId && `message ${item.messageId}`,
    item.attribute,
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * One piece of evidence of failed run `index`: where it sits (its span linked when the run's
 * trace kept that span) and what it says.
 */
export function evidenceItem(item: Evidence, run: CaseRun, index: number): SafeHtml {
  const place = where(item);
  const linked =
    item.spanId !== undefined && run.trace?.spans.some((span) => span.spanId === item.spanId);
  return html`<li>${place && html`<span class="muted">${linked ? html`<a href="#${spanAnchor(index, item.spanId as string)}">${place}</a>` : place}:</span> `}${item.excerpt}</li>`;
}

function facts(run: CaseRun): SafeHtml {
  const rows: [string, string | undefined][] = [
    ['status', run.status],
    ['guard', run.guard],
    ['error', run.error && `${run.error.name}: ${run.error.message}`],
    ['check', run.check?.reason],
    ['check threw', run.checkError],
    ['answer', run.answer || '(empty)'],
    ['duration', duration(run.durationMs)],
  ];
  return html`<dl class="facts">${rows.map(([key, value]) => value !== undefined && html`<dt>${key}</dt><dd><pre>${value}</pre></dd>`)}</dl>`;
}

/** One failed run: its verdict and evidence, span tree and conversation, each expandable. */
export function failedRun(run: CaseRun, index: number, open: boolean): SafeHtml {
  const verdict = run.attribution;
  const trace = run.trace;
  return html`<details class="run" id="${runAnchor(index)}" data-case="${run.case}"${open && html` open`}><summary><span class="layer layer-${verdict?.layer ?? 'none'}">${verdict?.layer ?? 'failed'}</span> <strong>${run.case}</strong> #${run.repeat} ${verdict && html`<span class="muted">${verdict.rule} (${verdict.confidence})</span> ${verdict.summary}`}</summary>${facts(run)}${
    verdict &&
    verdict.evidence.length > 0 &&
    html`<h4>Evidence</h4><ul class="evidence">${verdict.evidence.map((item) => evidenceItem(item, run, index))}</ul>`
  }${
    trace
      ? html`<details class="spans"${open && html` open`}><summary>Span tree (${trace.spans.length} spans)</summary>${spanTree(trace, index)}</details><details class="conversation"${open && html` open`}><summary>Conversation (${trace.messages.length} messages)</summary>${conversation(trace)}</details>`
      : html`<p class="muted">No trace kept for this run (a report saved before traces were recorded).</p>`
  }</details>`;
}
