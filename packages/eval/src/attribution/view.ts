import {
  type CompactionRecord,
  ConfigError,
  type Guard,
  type Message,
  type RunResult,
  SPAN_ATTRIBUTES,
  SPAN_NAMES,
  type SpanRecord,
  type ToolCallStatus,
} from '@mh/core';
import { sessionToolCalls } from '../checks/input.js';
import { type RecoveredError, splitRecovered } from './recovery.js';
import type { ToolCallView } from './tool-call.js';
import type { AttributionInput } from './types.js';

/** A compaction with the messages it removed or shortened, as they were before. */
export interface CompactionView {
  /** What the compaction did. */
  readonly record: CompactionRecord;
  /** The folded or trimmed messages as they were before. */
  readonly originals: readonly Message[];
  /** Its `mh.compaction` span, when it could be matched. */
  readonly spanId?: string;
}

/** What the rules read, computed once per session. */
export interface SessionView {
  /** What the rules were given. */
  readonly input: AttributionInput;
  /** The first failure: what the agent threw, or the error of the first run that ended badly. */
  readonly error: unknown;
  /** The run that ended badly (the last run when the agent threw or a guard stopped it). */
  readonly failedRun: RunResult | undefined;
  /** The guard that stopped the session (`timeout` when the runner's timeout did). */
  readonly guard: Guard | undefined;
  /** Every tool call of the session, in order. */
  readonly calls: readonly ToolCallView[];
  /**
   * Calls that ran and failed (`error`, `timeout` or `invalid-arguments`) and that no later
   * identical call recovered from: the tool errors that may have caused the failure.
   */
  readonly toolErrors: readonly ToolCallView[];
  /** Failed calls a later identical call ran fine: evidence of what happened, not a cause. */
  readonly recovered: readonly RecoveredError[];
  /** Compactions that changed the history (skipped ones left out). */
  readonly compactions: readonly CompactionView[];
  /** The session's finished spans. */
  readonly spans: readonly SpanRecord[];
}

/** Statuses that mean a tool ran (or was validated) and failed. */
export const TOOL_ERROR_STATUSES: readonly ToolCallStatus[] = [
  'error',
  'timeout',
  'invalid-arguments',
];

function stringAttribute(span: SpanRecord, key: string): string | undefined {
  const value = span.attributes[key];
  return typeof value === 'string' ? value : undefined;
}

function callViews(input: AttributionInput, spans: readonly SpanRecord[]): ToolCallView[] {
  const statuses = new Map<string, ToolCallStatus>();
  for (const event of input.events ?? []) {
    if (event.type === 'tool-execution-end')
      statuses.set(event.outcome.call.id, event.outcome.status);
  }
  const toolSpans = new Map<string, SpanRecord>();
  for (const span of spans) {
    const id =
      span.name === SPAN_NAMES.tool ? stringAttribute(span, SPAN_ATTRIBUTES.toolCallId) : undefined;
    if (id !== undefined) toolSpans.set(id, span);
  }
  const traced = input.events !== undefined || toolSpans.size > 0;
  const runOf = new Map<string, number>();
  input.results.forEach((result, index) => {
    for (const message of result.newMessages)
      for (const block of message.content)
        if (block.type === 'tool_use' && !runOf.has(block.id)) runOf.set(block.id, index);
  });
  return sessionToolCalls(input.results).map((call) => {
    const span = toolSpans.get(call.id);
    const spanStatus = span && stringAttribute(span, SPAN_ATTRIBUTES.toolStatus);
    // With events or spans at hand, a call neither shows was never run (refused as a repeat,
    // cancelled); only without both does the result's error flag stand in for the status.
    const status =
      statuses.get(call.id) ??
      (spanStatus as ToolCallStatus | undefined) ??
      (traced ? 'skipped' : call.isError ? 'error' : 'ok');
    return {
      id: call.id,
      name: call.name,
      input: call.input,
      status,
      result: call.result,
      run: runOf.get(call.id) ?? input.results.length - 1,
      ...(span ? { spanId: span.spanId } : {}),
    };
  });
}

function compactionViews(input: AttributionInput, spans: readonly SpanRecord[]): CompactionView[] {
  const byId = new Map<string, CompactionView>();
  for (const event of input.events ?? []) {
    if (event.type === 'compaction')
      byId.set(event.record.id, { record: event.record, originals: event.originals });
  }
  for (const result of input.results) {
    for (const record of result.compactions ?? []) {
      if (!byId.has(record.id)) byId.set(record.id, { record, originals: [] });
    }
  }
  const views = [...byId.values()].filter((view) => view.record.stage !== 'skipped');
  // Compaction spans carry no record id: pair them with the records by order when the counts agree.
  const compactionSpans = spans
    .filter(
      (span) =>
        span.name === SPAN_NAMES.compaction &&
        stringAttribute(span, SPAN_ATTRIBUTES.compactionStage) !== 'skipped',
    )
    .sort((a, b) => a.startTimeMs - b.startTimeMs);
  if (compactionSpans.length !== views.length) return views;
  return views.map((view, index) => {
    const span = compactionSpans[index];
    return span ? { ...view, spanId: span.spanId } : view;
  });
}

const CHECK_STATUSES = ['passed', 'failed', 'threw', 'skipped'];

/** Throws `ConfigError` naming the field unless `input` has the shape attribution reads. */
function assertInput(input: AttributionInput): void {
  if (input === null || typeof input !== 'object')
    throw new ConfigError('input', 'expected an object');
  if (!Array.isArray(input.results))
    throw new ConfigError('input.results', 'expected an array of RunResults');
  input.results.forEach((result, index) => {
    if (
      result === null ||
      typeof result !== 'object' ||
      !Array.isArray(result.newMessages) ||
      !Array.isArray(result.messages)
    )
      throw new ConfigError(`input.results[${index}]`, 'expected a RunResult');
  });
  if (input.events !== undefined && !Array.isArray(input.events))
    throw new ConfigError('input.events', 'expected an array');
  if (input.spans !== undefined && !Array.isArray(input.spans))
    throw new ConfigError('input.spans', 'expected an array');
  const check = input.check as { status?: unknown; result?: { failures?: unknown } } | null;
  if (
    check === null ||
    typeof check !== 'object' ||
    !CHECK_STATUSES.includes(check.status as string)
  )
    throw new ConfigError('input.check.status', `expected one of ${CHECK_STATUSES.join(', ')}`);
  if (
    (check.status === 'passed' || check.status === 'failed') &&
    !Array.isArray(check.result?.failures)
  )
    throw new ConfigError('input.check.result', 'expected a CheckResult');
}

/** Builds the view the rules read. */
export function sessionView(input: AttributionInput): SessionView {
  assertInput(input);
  const spans = input.spans ?? [];
  const failedRun = input.results.find((result) => result.status !== 'completed');
  const timedOut = input.timedOut === true;
  const guard: Guard | undefined =
    failedRun?.status === 'guard' ? failedRun.guard : timedOut ? 'timeout' : undefined;
  const calls = callViews(input, spans);
  const { recovered, unrecovered } = splitRecovered(
    calls,
    calls.filter((call) => TOOL_ERROR_STATUSES.includes(call.status)),
  );
  // Only exceptions count as the error: a guard's GuardTrippedError is a limit, and a run the
  // runner's own timeout cancelled ended by a limit too.
  const runError =
    failedRun?.status === 'error' || (failedRun?.status === 'cancelled' && !timedOut)
      ? failedRun.error
      : undefined;
  return {
    input,
    error: input.error ?? runError,
    failedRun:
      failedRun ?? (input.error !== undefined || timedOut ? input.results.at(-1) : undefined),
    guard,
    calls,
    toolErrors: unrecovered,
    recovered,
    compactions: compactionViews(input, spans),
    spans,
  };
}
