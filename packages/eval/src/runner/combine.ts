import {
  addUsage,
  type CompactionRecord,
  ConfigError,
  metricsFromSpans,
  type RunResult,
  SPAN_NAMES,
  type SpanRecord,
  ZERO_USAGE,
} from '@mh/core';
import type { SessionMetrics } from '../report/types.js';

const NONE: readonly CompactionRecord[] = [];

/**
 * The metrics of a session: every run of a multi-prompt case combined (SPEC defect 2 counted only
 * the last). Derived from the session's spans when it has run spans (tokens and cost summed over
 * model calls, so each run span carries only its own cost), else from the run results (an agent
 * that ignored the tracer).
 */
export function combine(
  results: readonly RunResult[],
  spans: readonly SpanRecord[] = [],
): SessionMetrics {
  if (!Array.isArray(results)) throw new ConfigError('results', 'expected an array of RunResults');
  if (!Array.isArray(spans)) throw new ConfigError('spans', 'expected an array of SpanRecords');
  if (spans.some((span) => span.name === SPAN_NAMES.run)) {
    const metrics = metricsFromSpans(spans);
    return {
      runs: results.length,
      turns: metrics.modelCalls,
      toolCalls: metrics.toolCalls,
      toolErrors: metrics.toolErrors,
      compactions: metrics.compactions,
      tokens: metrics.tokens,
      cacheHitRatio: metrics.cacheHitRatio,
      costUsd: metrics.costUsd,
    };
  }
  const usage = results.reduce((sum, result) => addUsage(sum, result.usage), ZERO_USAGE);
  let toolCalls = 0;
  let toolErrors = 0;
  let compactions = 0;
  for (const result of results) {
    for (const record of result.compactions ?? NONE) if (record.stage !== 'skipped') compactions++;
    for (const message of result.newMessages) {
      for (const block of message.content) {
        if (block.type === 'tool_use') toolCalls++;
        else if (block.type === 'tool_result' && block.isError) toolErrors++;
      }
    }
  }
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    runs: results.length,
    turns: results.reduce((sum, result) => sum + result.turns, 0),
    toolCalls,
    toolErrors,
    compactions,
    tokens: {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cacheRead: usage.cacheReadTokens,
      cacheWrite: usage.cacheWriteTokens,
    },
    cacheHitRatio: prompt === 0 ? 0 : usage.cacheReadTokens / prompt,
    costUsd: results.reduce((sum, result) => sum + result.costUsd, 0),
  };
}
