import type { RunResult } from '../loop/run-result.js';
import type { Message } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';

/** A JSON Schema object, as sent to providers. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A tool as the model sees it: name, description, argument schema. */
export interface ToolSpec {
  /** Name matching `[a-zA-Z0-9_-]{1,64}`. */
  readonly name: string;
  /** What the tool does and when to use it; part of the prompt. */
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: JsonSchema;
}

/** A vendor-neutral request for one model call. */
export interface ModelRequest {
  /** Provider model id, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  /** The system prompt, kept out of the message list. */
  readonly system?: string;
  /** The history; always satisfies the pairing invariant. */
  readonly messages: readonly Message[];
  /** Tools the model may call (empty: none). */
  readonly tools: readonly ToolSpec[];
  /** Cap on generated tokens for this call. */
  readonly maxOutputTokens?: number;
  /** Sampling temperature. */
  readonly temperature?: number;
  /** Sequences that end generation. */
  readonly stopSequences?: readonly string[];
  /**
   * What the call is for: absent for a turn of the conversation, `summary` for a compaction's
   * summary. Adapters do not send it; it lets fakes and recorders tell the two apart.
   */
  readonly purpose?: 'summary';
  /**
   * The shape the answer must have (typed output), for a provider that constrains it natively:
   * OpenAI's `response_format` / `text.format`, Anthropic's `output_config.format`. Absent: free
   * text. The schema is sent as given: with `strict`, one `toStrictSchema` made.
   */
  readonly output?: OutputFormat;
  /**
   * `required`: the model must call one of the tools (typed output through a final tool);
   * absent or `auto`: it may answer in text. Adapters map it to the vendor's `tool_choice`.
   */
  readonly toolChoice?: 'auto' | 'required';
}

/** A JSON answer's shape, as a provider sends it to the model (see `ModelRequest.output`). */
export interface OutputFormat {
  /** The format's name (OpenAI requires one: letters, digits, `_` and `-`, at most 64). */
  readonly name: string;
  readonly schema: JsonSchema;
  /** Whether the vendor must hold the answer to the schema (OpenAI's strict mode). */
  readonly strict: boolean;
}

/** Why the model stopped. */
export const STOP_REASONS = [
  'end',
  'tool-use',
  'max-tokens',
  'stop-sequence',
  'refusal',
  'other',
] as const;
/** Why the model stopped. */
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The unified stream of one model call. Every provider maps its vendor stream into exactly this
 * union. A call's events are: `message-start`, any deltas and tool calls, any `usage`, then exactly
 * one `message-end`. Failures are thrown from the iterator as `ProviderError`, never sent as events.
 * `stream-reset` means a retry replaced a broken attempt: discard this call's deltas seen so far.
 */
export type StreamEvent =
  | { readonly type: 'message-start'; readonly id?: string; readonly model?: string }
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'thinking-delta'; readonly text: string }
  | { readonly type: 'tool-call-start'; readonly id: string; readonly name: string }
  | { readonly type: 'tool-call-delta'; readonly id: string; readonly json: string }
  | {
      readonly type: 'tool-call-end';
      readonly id: string;
      readonly name: string;
      readonly input: unknown;
    }
  | {
      readonly type: 'usage';
      /** Running totals of this call so far (not increments); the last one before a failure counts. */
      readonly usage: Usage;
    }
  | {
      readonly type: 'stream-reset';
      /** The attempt that starts now (2 for the first retry). */
      readonly attempt: number;
      /** Why the previous attempt was discarded. */
      readonly reason: string;
      /** Tokens the discarded attempt used, when known: they are paid for, so they count. */
      readonly usage?: Usage;
    }
  | {
      readonly type: 'message-end';
      readonly stopReason: StopReason;
      /** The complete assistant message (all blocks, thinking signatures included). */
      readonly message: Message;
      /** Final usage of this call. */
      readonly usage: Usage;
      /** The model that answered, when the provider reports it. */
      readonly model?: string;
    };

/** Per-call options of `Provider.stream`. */
export interface StreamOptions {
  /** Aborts the call; the iterator then throws `CancelledError` (or ends) promptly. */
  readonly signal?: AbortSignal;
}

/**
 * A model provider: the port every vendor adapter implements. It maps one request to one stream of
 * `StreamEvent`s and its failures to `ProviderError`s. It keeps no conversation state.
 */
export interface Provider {
  /** Short vendor name used in spans and errors, e.g. `anthropic`, `openai`, `fake`. */
  readonly name: string;
  /** Starts a model call. The iterable is consumed once; the consumer's pace is the stream's pace. */
  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent>;
  /**
   * True when the provider sends `ModelRequest.output` in the vendor's native structured-output
   * form. Typed output then uses it; otherwise the loop asks for a final tool call. A provider
   * that wraps another must forward it.
   */
  readonly nativeOutput?: boolean;
  /**
   * Optional: sees the result of each run this provider served before the loop reports it, and
   * may return another. A replaying provider uses it to end a run that stopped before its
   * recording did with the drift error, where the caller reads the result. Must not throw.
   */
  settle?(result: RunResult): RunResult;
}
