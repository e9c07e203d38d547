import type { Clock } from '@mh/core';
import type { Scrubber } from '../recording/scrub.js';
import type { DriftFinding } from '../replay/drift.js';
import type { CassetteKey, CassetteMode, RequestEntry, ToolEntry } from './format.js';

/** How replayed events are paced. */
export const REPLAY_TIMINGS = ['none', 'recorded'] as const;
/** `none` serves events at once; `recorded` waits the recorded time before each event. */
export type ReplayTiming = (typeof REPLAY_TIMINGS)[number];

/** How a replay treats a recorded tool call. */
export const TOOL_REPLAY_MODES = ['live', 'served'] as const;
/**
 * `live`: the call runs again on the current tools and its result is compared with the recorded
 * one (a difference is a `tool-result` finding); `served`: the recorded result is served and the
 * tool never runs. By default `read` tools run live and `write`/`exec` tools are served.
 */
export type ToolReplayMode = (typeof TOOL_REPLAY_MODES)[number];

/**
 * What the recorder and replayer of one key share with their cassette. Internal: providers and
 * executors get it from `Cassette`, which owns the file and the findings.
 */
export interface KeyContext {
  /** The recording concerned. */
  readonly key: CassetteKey;
  /** The cassette's mode. */
  readonly mode: CassetteMode;
  /** Fail at the first drift (replay modes). */
  readonly strict: boolean;
  /** Pacing of replayed events. */
  readonly timing: ReplayTiming;
  /** Replay mode per tool name, overriding the default by permission. */
  readonly toolModes: Readonly<Record<string, ToolReplayMode>>;
  /** Times events (`now`, high resolution) and paces replays (`sleep`). */
  readonly clock: Clock;
  /** The key's recorded requests by index (empty when recording). */
  readonly requests: ReadonlyMap<number, RequestEntry>;
  /** The key's recorded tool calls in order (empty when recording). */
  readonly tools: readonly ToolEntry[];
  /** Counters shared by the key's provider and executor. */
  readonly state: KeyState;
  /** Appends one line (a JSON object) to the cassette. */
  write(jsonLine: string): void;
  /** The cassette's secret scrubber. */
  readonly scrubber: Scrubber;
  /** A request as it would have been recorded: JSON, scrubbed of secrets. */
  comparable(value: unknown): unknown;
  /** Adds a finding to the cassette's list. */
  report(finding: DriftFinding): void;
}

/** Counters of one key. */
export interface KeyState {
  /** Requests started so far (the next request's index). */
  requests: number;
  /** Tool calls recorded so far (the next tool entry's index). */
  toolCalls: number;
}

/** The line of a tool entry. */
export function toolLine(
  key: CassetteKey,
  index: number,
  entry: Omit<ToolEntry, 'type' | 'case' | 'repeat' | 'index'>,
): string {
  return JSON.stringify({
    type: 'tool',
    case: key.case,
    repeat: key.repeat,
    index,
    call: entry.call,
    outcome: entry.outcome,
  });
}
