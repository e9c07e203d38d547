import type { ContentBlock, Message, RunResult, SpanRecord } from '@mh/core';
import { redact } from '../attribution/evidence.js';

/** Longest text of one message block or attribute kept in a trace, characters. */
export const MAX_TRACE_TEXT_CHARS = 2_000;
/** Most spans kept per trace (a run that loops until a guard can open thousands). */
export const MAX_TRACE_SPANS = 300;
/** Most messages kept per trace: the newest, where a failure shows. */
export const MAX_TRACE_MESSAGES = 120;

/** One span of a failed session, as the report keeps it. */
export interface TraceSpan {
  /** The span's name, e.g. `mh.tool`. */
  readonly name: string;
  /** Its id. */
  readonly spanId: string;
  /** Its parent's id; absent for a root. */
  readonly parentSpanId?: string;
  /** Start, milliseconds after the session's first span started. */
  readonly startMs: number;
  /** Duration, milliseconds. */
  readonly durationMs: number;
  /** `error` when the span failed. */
  readonly status: 'unset' | 'ok' | 'error';
  /** Its attributes, arrays joined and long strings cut, secrets masked. */
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Names of its events (`mh.retry`, `exception`), in order. */
  readonly events: readonly string[];
}

/** One block of a message, flattened to text. */
export interface TraceBlock {
  /** The block's type. */
  readonly type: ContentBlock['type'];
  /** Its text: the text, the call's arguments as JSON, the result's text. */
  readonly text: string;
  /** The tool, for a `tool_use`. */
  readonly name?: string;
  /** The call id, for a `tool_use` or `tool_result`. */
  readonly callId?: string;
  /** True for a failed `tool_result`. */
  readonly isError?: boolean;
}

/** One message of the conversation. */
export interface TraceMessage {
  /** Its id. */
  readonly id: string;
  /** Who wrote it. */
  readonly role: Message['role'];
  /** Its blocks. */
  readonly blocks: readonly TraceBlock[];
}

/** What a failed session did: its span tree and its conversation, kept for the HTML report. */
export interface RunTrace {
  /** Its spans in start order, at most `MAX_TRACE_SPANS`. */
  readonly spans: readonly TraceSpan[];
  /** The conversation at the end of its last run, the newest `MAX_TRACE_MESSAGES`. */
  readonly messages: readonly TraceMessage[];
  /** Spans and messages left out by the caps. */
  readonly omitted: { readonly spans: number; readonly messages: number };
}

function cut(text: string): string {
  const masked = redact(text);
  return masked.length > MAX_TRACE_TEXT_CHARS
    ? `${masked.slice(0, MAX_TRACE_TEXT_CHARS)}… (${masked.length - MAX_TRACE_TEXT_CHARS} more)`
    : masked;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function blockOf(block: ContentBlock): TraceBlock {
  switch (block.type) {
    case 'text':
      return { type: block.type, text: cut(block.text) };
    case 'thinking':
      return { type: block.type, text: cut(block.thinking || '(redacted reasoning)') };
    case 'tool_use':
      return {
        type: block.type,
        text: cut(block.rawInput ?? json(block.input)),
        name: block.name,
        callId: block.id,
      };
    case 'tool_result':
      return {
        type: block.type,
        text: cut(
          block.content
            .map((part) => (part.type === 'text' ? part.text : `[image ${part.mediaType}]`))
            .join('\n'),
        ),
        callId: block.toolUseId,
        isError: block.isError,
      };
    case 'image':
      // Never the data: a report must stay small and must not carry what a tool read.
      return { type: block.type, text: `[image ${block.mediaType}]` };
    default:
      return { type: block.type, text: `[${block.provider} block]` };
  }
}

function spanOf(span: SpanRecord, origin: number): TraceSpan {
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(span.attributes))
    attributes[key] =
      typeof value === 'string'
        ? cut(value)
        : Array.isArray(value)
          ? cut(value.join(', '))
          : (value as number | boolean);
  return {
    name: span.name,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    startMs: span.startTimeMs - origin,
    durationMs: span.endTimeMs - span.startTimeMs,
    status: span.status,
    attributes,
    events: span.events.map((event) => event.name),
  };
}

/**
 * The trace the report keeps of a failed session: its spans (relative times, texts cut to
 * `MAX_TRACE_TEXT_CHARS`, secrets masked) and the conversation of its last run (the history a
 * multi-prompt session built), both capped so a runaway run cannot bloat the report.
 */
export function traceOf(results: readonly RunResult[], spans: readonly SpanRecord[]): RunTrace {
  const ordered = [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs);
  const origin = ordered[0]?.startTimeMs ?? 0;
  const kept = ordered.slice(0, MAX_TRACE_SPANS);
  const history = results.at(-1)?.messages ?? [];
  const recent = history.slice(-MAX_TRACE_MESSAGES);
  return {
    spans: kept.map((span) => spanOf(span, origin)),
    messages: recent.map((message) => ({
      id: message.id,
      role: message.role,
      blocks: message.content.map(blockOf),
    })),
    omitted: { spans: ordered.length - kept.length, messages: history.length - recent.length },
  };
}
