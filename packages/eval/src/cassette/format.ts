import type {
  AskedQuestion,
  ModelRequest,
  Permission,
  StreamEvent,
  ToolCallStatus,
  ToolResultBlock,
  ToolUseBlock,
} from '@mh/core';

/** The `format` of a cassette's header line. */
export const CASSETTE_FORMAT = 'mh-cassette';
/** The cassette format version this package writes and the newest it reads. */
export const CASSETTE_VERSION = 1;

/** What a cassette is for: write a recording, replay it (falling through), or replay only. */
export const CASSETTE_MODES = ['record', 'replay', 'lockdown'] as const;
/**
 * `record` calls the inner provider and writes every exchange; `replay` serves recorded exchanges
 * and lets a request beyond the recording fall through to the inner provider (recording it);
 * `lockdown` serves recorded exchanges only and fails any other request.
 */
export type CassetteMode = (typeof CASSETTE_MODES)[number];

/** Which recording within a cassette: one eval case, one repeat. */
export interface CassetteKey {
  /** The case id (non-empty). */
  readonly case: string;
  /** The repeat index, an integer >= 0 (repeat i replays recording i). */
  readonly repeat: number;
}

/** The first line of a cassette. */
export interface CassetteHeader {
  readonly type: 'header';
  /** Always `mh-cassette`. */
  readonly format: string;
  /** Format version (see `CASSETTE_VERSION`). */
  readonly version: number;
  /** When recording started, ISO 8601. */
  readonly createdAt: string;
  /** What the recorder chose to note: provider, model, harness commit, flags. */
  readonly meta: Readonly<Record<string, unknown>>;
}

/** One stream event and when it arrived. */
export interface RecordedEvent {
  /** Milliseconds since the request started (0.1 ms resolution). */
  readonly ms: number;
  /** The event, as the provider yielded it. */
  readonly event: StreamEvent;
}

/** A failure of a model call, as recorded (the cause is never recorded: it may hold headers). */
export interface RecordedError {
  /** The error class name, e.g. `ProviderError`. */
  readonly name: string;
  /** The message, scrubbed of secrets. */
  readonly message: string;
  /** `ProviderError.kind`, when it was one. */
  readonly kind?: string;
  /** `ProviderError.status` (HTTP), when known. */
  readonly status?: number;
  /** `ProviderError.retryable`. */
  readonly retryable?: boolean;
  /** `ProviderError.retryAfterMs`, when the server asked for a wait. */
  readonly retryAfterMs?: number;
  /** `ProviderError.provider`. */
  readonly provider?: string;
  /** True for a mini-harness error other than the two above (replayed as a `HarnessError`). */
  readonly harness?: boolean;
}

/** How a recorded stream ended. */
export const REQUEST_OUTCOMES = ['complete', 'error', 'abandoned'] as const;
/**
 * `complete`: the stream ended (normally after `message-end`); `error`: it threw `error`;
 * `abandoned`: its consumer stopped reading first (a cancel, a timeout).
 */
export type RequestOutcome = (typeof REQUEST_OUTCOMES)[number];

/** One model call: the request and everything the provider answered. */
export interface RequestEntry {
  /** Always `request`. */
  readonly type: 'request';
  /** The key's case id. */
  readonly case: string;
  /** The key's repeat index. */
  readonly repeat: number;
  /** 0-based ordinal of the request within its key. */
  readonly index: number;
  /**
   * In the file: how many leading messages are those of the key's previous request (only the
   * rest is written). Absent once read: `request.messages` is then complete.
   */
  readonly sharedMessages?: number;
  /** The request as the harness sent it (scrubbed of secrets). */
  readonly request: ModelRequest;
  /** Every event the provider yielded, in order. */
  readonly events: readonly RecordedEvent[];
  /** How the stream ended. */
  readonly outcome: RequestOutcome;
  /** Set when `outcome` is `error`. */
  readonly error?: RecordedError;
  /** Milliseconds from the request to the end of its stream. */
  readonly durationMs: number;
}

/** A tool call's outcome as recorded (the call itself is stored next to it). */
export interface RecordedToolOutcome {
  /** How the call ended. */
  readonly status: ToolCallStatus;
  /** The result the model read. */
  readonly result: ToolResultBlock;
  /** Attempts made. */
  readonly attempts: number;
  /** Wall time of the call when recorded, in milliseconds. */
  readonly durationMs: number;
  /** The tool's permission, when it exists. */
  readonly permission?: Permission;
  /** The question the call stopped on, when `status` is `interrupted` (`ctx.interrupt`). */
  readonly question?: AskedQuestion;
}

/** One tool call and its outcome. */
export interface ToolEntry {
  /** Always `tool`. */
  readonly type: 'tool';
  /** The key's case id. */
  readonly case: string;
  /** The key's repeat index. */
  readonly repeat: number;
  /** 0-based ordinal of the tool call within its key, in the order outcomes arrived. */
  readonly index: number;
  /** The call as the model made it. */
  readonly call: ToolUseBlock;
  /** What running it gave. */
  readonly outcome: RecordedToolOutcome;
}

/** A stable string for a key, for maps. */
export function keyId(key: CassetteKey): string {
  return JSON.stringify([key.case, key.repeat]);
}

/** `case 'x' repeat 0`, for messages. */
export function describeKey(key: CassetteKey): string {
  return `case ${JSON.stringify(key.case)} repeat ${key.repeat}`;
}
