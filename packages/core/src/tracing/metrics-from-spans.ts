import { ConfigError } from '../errors.js';
import { SPAN_NAMES } from '../ports/tracer.js';
import { percentile } from './percentile.js';
import { childrenBySpanId, type SpanRecord, spanDurationMs } from './span-record.js';
import { SPAN_ATTRIBUTES as A } from './vocabulary.js';

/** Tokens by kind, in disjoint buckets (their sum is every token billed). */
export interface TokenCounts {
  /** Uncached prompt tokens. */
  readonly input: number;
  /** Generated tokens, reasoning included. */
  readonly output: number;
  /** Prompt tokens read from the provider's cache. */
  readonly cacheRead: number;
  /** Prompt tokens written to the provider's cache. */
  readonly cacheWrite: number;
}

/** Latencies, milliseconds. Percentiles are nearest-rank (`percentile`); undefined without samples. */
export interface LatencyMetrics {
  /** Wall time of all runs, summed. */
  readonly runMs: number;
  /** Median run duration. */
  readonly runP50Ms: number | undefined;
  /** 95th percentile run duration. */
  readonly runP95Ms: number | undefined;
  /** Median model-call duration (whole stream, retries included). */
  readonly modelP50Ms: number | undefined;
  /** 95th percentile model-call duration. */
  readonly modelP95Ms: number | undefined;
  /** Median time to first streamed chunk. */
  readonly timeToFirstTokenP50Ms: number | undefined;
  /** 95th percentile time to first streamed chunk. */
  readonly timeToFirstTokenP95Ms: number | undefined;
}

/** What a set of finished spans says about the runs they trace. */
export interface SpanMetrics {
  /** `mh.run` spans. */
  readonly runs: number;
  /** True when there was a run and every run ended `completed`. */
  readonly completed: boolean;
  /** The status of the last run to start (`completed`, `guard`, `cancelled`, `error`). */
  readonly status: string | undefined;
  /** `mh.turn` spans. */
  readonly turns: number;
  /** `mh.model` spans. */
  readonly modelCalls: number;
  /** Tokens billed, by kind. */
  readonly tokens: TokenCounts;
  /** Cache reads over all prompt tokens (uncached, read, written); 0 without prompt tokens. */
  readonly cacheHitRatio: number;
  /** Cost in USD of every model call (and summary) traced. */
  readonly costUsd: number;
  /** Durations. */
  readonly latency: LatencyMetrics;
  /** `mh.tool` spans. */
  readonly toolCalls: number;
  /** Tool spans marked failed (any status but `ok`). */
  readonly toolErrors: number;
  /** `mh.compaction` spans that changed the history (stage other than `skipped`). */
  readonly compactions: number;
  /** Model-call attempts beyond the first (`mh.retry.attempts` − 1, summed). */
  readonly retries: number;
  /** The guard that stopped the last run a guard stopped, if any. */
  readonly guard: string | undefined;
}

function numberOf(record: SpanRecord, key: string): number {
  const value = record.attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function stringOf(record: SpanRecord, key: string): string | undefined {
  const value = record.attributes[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Spans whose tokens and cost are billed: every `mh.model` span, and every `mh.compaction` span
 * without an `mh.model` span below it (its summary call was not traced as its own span, so the
 * compaction span carries that call's usage and cost). Run spans carry totals and are not summed.
 */
function billedSpans(records: readonly SpanRecord[]): SpanRecord[] {
  const children = childrenBySpanId(records);
  const hasModelBelow = (record: SpanRecord): boolean =>
    (children.get(record.spanId) ?? []).some(
      (child) => child.name === SPAN_NAMES.model || hasModelBelow(child),
    );
  return records.filter(
    (record) =>
      record.name === SPAN_NAMES.model ||
      (record.name === SPAN_NAMES.compaction && !hasModelBelow(record)),
  );
}

function tokensOf(records: readonly SpanRecord[]): TokenCounts {
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  for (const record of records) {
    const read = numberOf(record, A.usageCacheReadTokens) || numberOf(record, A.cacheReadTokens);
    const write = numberOf(record, A.usageCacheWriteTokens) || numberOf(record, A.cacheWriteTokens);
    // gen_ai.usage.input_tokens counts every prompt token; the cache counts are subsets of it.
    input += Math.max(0, numberOf(record, A.usageInputTokens) - read - write);
    output += numberOf(record, A.usageOutputTokens);
    cacheRead += read;
    cacheWrite += write;
  }
  return { input, output, cacheRead, cacheWrite };
}

/**
 * Metrics of the runs traced in `records` (finished spans, in any order, of one or several runs
 * and traces): a pure function, so eval, the CLI and tests derive the same numbers from the same
 * spans. Tokens and cost are summed over model calls, never taken from run spans, so a run span
 * that wrongly carried a session's running total could not inflate them (SPEC defect 2).
 */
export function metricsFromSpans(records: readonly SpanRecord[]): SpanMetrics {
  if (!Array.isArray(records))
    throw new ConfigError('records', 'expected an array of span records, e.g. tracing.records()');
  const named = (name: string): SpanRecord[] => records.filter((record) => record.name === name);
  const runs = named(SPAN_NAMES.run).sort((a, b) => a.startTimeMs - b.startTimeMs);
  const models = named(SPAN_NAMES.model);
  const tools = named(SPAN_NAMES.tool);
  const billed = billedSpans(records);
  const tokens = tokensOf(billed);
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  const runDurations = runs.map(spanDurationMs);
  const modelDurations = models.map(spanDurationMs);
  const firstTokens = models
    .map((record) => record.attributes[A.timeToFirstTokenMs])
    .filter((value): value is number => typeof value === 'number');
  const statuses = runs.map((run) => stringOf(run, A.runStatus));
  const guards = runs.map((run) => stringOf(run, A.guard)).filter((guard) => guard !== undefined);
  return {
    runs: runs.length,
    completed: runs.length > 0 && statuses.every((status) => status === 'completed'),
    status: statuses.at(-1),
    turns: named(SPAN_NAMES.turn).length,
    modelCalls: models.length,
    tokens,
    cacheHitRatio: prompt === 0 ? 0 : tokens.cacheRead / prompt,
    costUsd: billed.reduce((sum, record) => sum + numberOf(record, A.costUsd), 0),
    latency: {
      runMs: runDurations.reduce((sum, value) => sum + value, 0),
      runP50Ms: percentile(runDurations, 50),
      runP95Ms: percentile(runDurations, 95),
      modelP50Ms: percentile(modelDurations, 50),
      modelP95Ms: percentile(modelDurations, 95),
      timeToFirstTokenP50Ms: percentile(firstTokens, 50),
      timeToFirstTokenP95Ms: percentile(firstTokens, 95),
    },
    toolCalls: tools.length,
    toolErrors: tools.filter(
      (record) => record.status === 'error' || (stringOf(record, A.toolStatus) ?? 'ok') !== 'ok',
    ).length,
    compactions: named(SPAN_NAMES.compaction).filter(
      (record) => stringOf(record, A.compactionStage) !== 'skipped',
    ).length,
    retries: models.reduce(
      (sum, record) => sum + Math.max(0, numberOf(record, A.retryAttempts) - 1),
      0,
    ),
    guard: guards.at(-1),
  };
}
