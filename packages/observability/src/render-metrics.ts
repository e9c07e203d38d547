import type { SpanMetrics } from '@mh/core';
import { formatDuration, formatTokens, formatUsd } from './format.js';

function ms(value: number | undefined): string {
  return value === undefined ? '–' : formatDuration(value);
}

/**
 * `metricsFromSpans`' result as a few lines for a terminal, under the tree `mh --trace` prints.
 * @example
 * console.log(renderMetrics(metricsFromSpans(tracing.records())));
 */
export function renderMetrics(metrics: SpanMetrics): string {
  const { tokens, latency } = metrics;
  const runs = `${metrics.runs} run${metrics.runs === 1 ? '' : 's'}`;
  const outcome = metrics.completed ? 'completed' : (metrics.status ?? 'no run');
  return [
    `${runs} · ${outcome}${metrics.guard ? ` (guard ${metrics.guard})` : ''} · ${metrics.turns} turns · ${metrics.modelCalls} model calls · ${metrics.retries} retries`,
    `tokens: in ${formatTokens(tokens.input)} · cache read ${formatTokens(tokens.cacheRead)} · cache write ${formatTokens(tokens.cacheWrite)} · out ${formatTokens(tokens.output)} · cache hit ${(metrics.cacheHitRatio * 100).toFixed(1)}% · ${formatUsd(metrics.costUsd)}`,
    `latency: run ${ms(latency.runMs)} · model p50 ${ms(latency.modelP50Ms)} p95 ${ms(latency.modelP95Ms)} · first token p50 ${ms(latency.timeToFirstTokenP50Ms)}`,
    `tools: ${metrics.toolCalls} calls · ${metrics.toolErrors} errors · compactions ${metrics.compactions}`,
  ].join('\n');
}
