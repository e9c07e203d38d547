import {
  SPAN_ATTRIBUTES as A,
  ConfigError,
  SPAN_EVENTS,
  SPAN_NAMES,
  type SpanRecord,
} from '@mh/core';
import { childrenBySpanId, spanDurationMs } from '@mh/core/internal';
import { formatDuration, formatTokens, formatUsd } from './format.js';

/** Longest error message shown on a line. */
const MAX_MESSAGE_CHARS = 80;

function text(record: SpanRecord, key: string): string | undefined {
  const value = record.attributes[key];
  return typeof value === 'string' ? value : undefined;
}

function number(record: SpanRecord, key: string): number | undefined {
  const value = record.attributes[key];
  return typeof value === 'number' ? value : undefined;
}

/** `in 1.2k (cache read 800, write 100) out 340`, from GenAI usage attributes. */
function tokens(record: SpanRecord): string | undefined {
  const input = number(record, A.usageInputTokens);
  const output = number(record, A.usageOutputTokens);
  if (input === undefined && output === undefined) return undefined;
  const read = number(record, A.usageCacheReadTokens) ?? 0;
  const write = number(record, A.usageCacheWriteTokens) ?? 0;
  const cache = [
    read > 0 ? `read ${formatTokens(read)}` : '',
    write > 0 ? `write ${formatTokens(write)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `in ${formatTokens(input ?? 0)}${cache ? ` (cache ${cache})` : ''} out ${formatTokens(output ?? 0)}`;
}

function cost(record: SpanRecord): string | undefined {
  const usd = number(record, A.costUsd);
  return usd === undefined ? undefined : formatUsd(usd);
}

/** `✗ rate-limit: slow down`, for a failed span. */
function failure(record: SpanRecord): string | undefined {
  if (record.status !== 'error') return undefined;
  const kind = text(record, A.errorType) ?? 'error';
  const exception = record.events.find((event) => event.name === SPAN_EVENTS.exception);
  const raw = exception?.attributes['exception.message'];
  const message = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : '';
  if (message === '' || message === kind) return `✗ ${kind}`;
  const short =
    message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  return `✗ ${kind}: ${short}`;
}

/** The label and details of one span, by kind. */
function describe(record: SpanRecord): (string | undefined)[] {
  const duration = formatDuration(spanDurationMs(record));
  switch (record.name) {
    case SPAN_NAMES.run: {
      const status = text(record, A.runStatus) ?? 'running';
      const guard = text(record, A.guard);
      const turns = number(record, A.turns);
      return [
        `run ${status}${guard ? `: ${guard}` : ''}`,
        duration,
        turns === undefined ? undefined : `${turns} turn${turns === 1 ? '' : 's'}`,
        tokens(record),
        cost(record),
      ];
    }
    case SPAN_NAMES.turn:
      return [`turn ${number(record, A.turn) ?? '?'}`, duration];
    case SPAN_NAMES.model: {
      const ttft = number(record, A.timeToFirstTokenMs);
      const retries = (number(record, A.retryAttempts) ?? 1) - 1;
      return [
        `model ${text(record, A.responseModel) ?? text(record, A.requestModel) ?? ''}`.trimEnd(),
        duration,
        ttft === undefined ? undefined : `ttft ${formatDuration(ttft)}`,
        tokens(record),
        cost(record),
        retries > 0 ? `${retries} retr${retries === 1 ? 'y' : 'ies'}` : undefined,
      ];
    }
    case SPAN_NAMES.tool: {
      const status = text(record, A.toolStatus);
      return [
        `tool ${text(record, A.toolName) ?? '?'}`,
        duration,
        status !== undefined && status !== 'ok' && record.status !== 'error' ? status : undefined,
      ];
    }
    case SPAN_NAMES.compaction: {
      const before = number(record, A.compactionTokensBefore);
      const after = number(record, A.compactionTokensAfter);
      const folded = number(record, A.compactionFoldedMessages);
      return [
        `compaction ${text(record, A.compactionStage) ?? ''}`.trimEnd(),
        duration,
        before === undefined || after === undefined
          ? undefined
          : `${formatTokens(before)} → ${formatTokens(after)} tokens`,
        folded === undefined ? undefined : `${folded} messages folded`,
        cost(record),
      ];
    }
    default:
      return [record.name, duration];
  }
}

function line(record: SpanRecord): string {
  return [...describe(record), failure(record)].filter((part) => part !== undefined).join(' · ');
}

/**
 * The span tree for a terminal: one line per span, indented under its parent in start order,
 * with durations, tokens, cost, tool names, retries, guards and errors. Spans whose parent is
 * missing start their own tree. Plain text (box-drawing characters, no colour).
 * @example
 * console.log(renderTree(tracing.records()));
 * // run completed · 1.84s · 2 turns · in 2.1k (cache read 1.5k) out 96 · $0.00342
 * // ├─ turn 1 · 1.12s
 * // │  ├─ model claude-sonnet-4-5 · 1.10s · ttft 420ms · in 1.0k out 40 · $0.0024
 * // │  └─ tool read_file · 3ms
 * // └─ turn 2 · 712ms
 * //    └─ model claude-sonnet-4-5 · 705ms · ttft 388ms · in 1.1k (cache read 1.5k) out 56 · $0.00102
 */
export function renderTree(records: readonly SpanRecord[]): string {
  if (!Array.isArray(records))
    throw new ConfigError('records', 'expected an array of span records, e.g. tracing.records()');
  const children = childrenBySpanId(records);
  const lines: string[] = [];
  const visit = (record: SpanRecord, prefix: string, branch: string): void => {
    lines.push(`${prefix}${branch}${line(record)}`);
    const below = children.get(record.spanId) ?? [];
    const nextPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    below.forEach((child, index) => {
      visit(child, nextPrefix, index === below.length - 1 ? '└─ ' : '├─ ');
    });
  };
  for (const root of children.get(undefined) ?? []) visit(root, '', '');
  return lines.join('\n');
}
