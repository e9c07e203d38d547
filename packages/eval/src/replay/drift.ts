import { ReplayDriftError } from '@mh/core';
import { type CassetteKey, describeKey } from '../cassette/format.js';

/** The kinds of drift a replay finds. */
export const DRIFT_KINDS = [
  'request-field',
  'unrecorded-request',
  'unconsumed-requests',
  'abandoned-request',
  'compaction',
  'tool-call',
  'tool-result',
  'tool-permission',
  'tool-decision',
  'unrecorded-tool-call',
  'unconsumed-tool-calls',
] as const;
/**
 * `request-field`: a field of a request differs from the recording; `unrecorded-request`: the run
 * asked for more model calls than were recorded; `unconsumed-requests`: it asked for fewer (a
 * guard, an earlier stop); `abandoned-request`: the recorded run was cancelled or timed out
 * during this request and the replay was not (path `outcome`), so it has no answer to serve;
 * `compaction`: a compaction's summary call moved, appeared or vanished (path `compactions[k]`;
 * `recorded` and `actual` say where: the request and the model calls made before it);
 * `tool-call`: a tool call's name or input differs; `tool-result`: a tool replayed live (a `read`
 * tool by default) returned another result than recorded (path `toolCalls.<id>.result`);
 * `tool-permission`: the
 * tool's declared permission differs; `tool-decision`: the current tools and permission policy
 * would decide the call otherwise than recorded (run vs denied, unknown tool, invalid arguments);
 * `unrecorded-tool-call`: a call the recording has no result for; `unconsumed-tool-calls`: recorded
 * calls never made.
 */
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** One difference between a replayed run and its recording: a harness finding. */
export interface DriftFinding {
  /** What kind of difference. */
  readonly kind: DriftKind;
  /** The recording it concerns. */
  readonly key: CassetteKey;
  /**
   * The model call concerned: the request's ordinal, or for a tool call the request whose answer
   * made it (-1 when no request was replayed for the key).
   */
  readonly requestIndex: number;
  /**
   * Where: a request field path, `requests`, `outcome`, `compactions[k]`, `toolCalls.<id>.input…`, `toolCalls.<id>.result`, `toolCalls.<id>.permission`,
   * `toolCalls.<id>.status`, or `toolCalls`.
   */
  readonly path: string;
  /** The recorded value (a count for the `unconsumed-*` and `unrecorded-*` kinds). */
  readonly recorded: unknown;
  /** The value now. */
  readonly actual: unknown;
  /** One line for people. */
  readonly message: string;
}

const EXCERPT_CHARS = 80;

/** A value shortened for a one-line message. */
export function excerpt(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1)}…` : text;
}

/** Context kept on each side of the first differing character of two strings. */
const CONTEXT_CHARS = 30;

/**
 * How two values differ, for a one-line message: `: recorded 1024, now 256`, or for two strings
 * ` at character 57: recorded "…", now "…"` around their first difference.
 */
export function describeDifference(recorded: unknown, actual: unknown): string {
  if (typeof recorded !== 'string' || typeof actual !== 'string')
    return `: recorded ${excerpt(recorded)}, now ${excerpt(actual)}`;
  let at = 0;
  while (at < recorded.length && at < actual.length && recorded[at] === actual[at]) at++;
  const start = Math.max(0, at - CONTEXT_CHARS);
  const around = (text: string): string => {
    const piece = JSON.stringify(text.slice(start, at + CONTEXT_CHARS)).slice(1, -1);
    return `"${start > 0 ? '…' : ''}${piece}${at + CONTEXT_CHARS < text.length ? '…' : ''}"`;
  };
  return ` at character ${at}: recorded ${around(recorded)}, now ${around(actual)}`;
}

/** Builds a finding; `detail` replaces the default "path differs: recorded …, now …" text. */
export function driftFinding(fields: Omit<DriftFinding, 'message'>, detail?: string): DriftFinding {
  const what =
    detail ?? `${fields.path} differs${describeDifference(fields.recorded, fields.actual)}`;
  const where = fields.requestIndex >= 0 ? `, request ${fields.requestIndex}` : '';
  return { ...fields, message: `${describeKey(fields.key)}${where}: ${what}` };
}

/** The error a strict replay fails with for a finding. */
export function driftError(finding: DriftFinding): ReplayDriftError {
  return new ReplayDriftError(`Replay drifted: ${finding.message}`, {
    path: finding.path,
    recorded: finding.recorded,
    actual: finding.actual,
    requestIndex: finding.requestIndex,
  });
}
