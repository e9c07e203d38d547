import { CancelledError } from '../errors.js';
import { type ContentBlock, type Message, newMessageId } from '../messages/message.js';
import type { Usage } from '../messages/usage.js';
import type {
  ModelRequest,
  Provider,
  StopReason,
  StreamEvent,
  StreamOptions,
} from '../ports/provider.js';

/** One tool call a scripted turn makes. */
export interface ScriptedCall {
  /** Call id (default: a unique `call_<n>`). */
  readonly id?: string;
  /** Tool name. */
  readonly name: string;
  /** Arguments (default `{}`). */
  readonly input?: unknown;
  /** Argument text that is not valid JSON: the call then has `input` `{}` and this `rawInput`. */
  readonly rawInput?: string;
}

/**
 * One scripted model call. Events are emitted in the order ports/provider.ts documents:
 * `message-start`, text deltas, tool calls (`tool-call-start`, `tool-call-delta`, `tool-call-end`),
 * `usage`, `message-end` (or `events`, verbatim). `error`, `hang` and `omitEnd` cut that sequence
 * short after `eventsBeforeStop` events (default: all events before `usage`, that is all but the
 * last two). A stream whose signal aborts throws `CancelledError` at its next event.
 */
export interface ScriptedTurn {
  /**
   * The events to stream, verbatim, instead of ones built from the fields below (a recorded
   * stream, or one another builder made); only `delayMs` and the cut fields still apply.
   */
  readonly events?: readonly StreamEvent[];
  /** Text deltas (a string is one delta). */
  readonly text?: string | readonly string[];
  /** Tool calls, after the text. */
  readonly toolCalls?: readonly ScriptedCall[];
  /** Usage of the call; missing fields are 0. */
  readonly usage?: Partial<Usage>;
  /** Stop reason (default `tool-use` when there are calls, else `end`). */
  readonly stopReason?: StopReason;
  /** Model reported on `message-end`. */
  readonly model?: string;
  /** Milliseconds to wait before each event (real timers; aborts promptly). */
  readonly delayMs?: number;
  /** Thrown from the iterator after `eventsBeforeStop` events (with `hang`: once aborted). */
  readonly error?: unknown;
  /**
   * After `eventsBeforeStop` events, wait: `until-aborted` throws `error`, or else
   * `CancelledError`, when the signal aborts (without a signal it never settles); `forever`
   * ignores the signal and never settles.
   */
  readonly hang?: 'until-aborted' | 'forever';
  /** End the stream after `eventsBeforeStop` events without `message-end`. */
  readonly omitEnd?: boolean;
  /** How many events precede `error`, `hang` or `omitEnd`. */
  readonly eventsBeforeStop?: number;
  /**
   * A broken first attempt, streamed before the turn: `message-start`, its text, then a
   * `stream-reset` (attempt 2) as a retrying provider sends when it replaced the attempt.
   */
  readonly reset?: {
    /** Text the broken attempt streamed. */
    readonly text: string;
    /** Why the attempt was discarded. */
    readonly reason: string;
    /** Tokens the broken attempt used; missing fields are 0. */
    readonly usage?: Partial<Usage>;
  };
}

/** A script: a list of turns played in order, or a function of the request number (0-based). */
export type Script =
  | readonly ScriptedTurn[]
  | ((index: number, request: ModelRequest) => ScriptedTurn);

/** Options of a `ScriptedProvider`. */
export interface ScriptedProviderOptions {
  /**
   * Keep every request in `requests` (default true). Long runs turn it off: each request holds
   * the whole history, so keeping them all grows memory with the square of the run's length.
   */
  readonly recordRequests?: boolean;
  /** Claim a native typed-output form (`Provider.nativeOutput`; default false). */
  readonly nativeOutput?: boolean;
}

let nextCallNumber = 0;

/** Builds the full event sequence and final message of a scripted turn. */
export function scriptedEvents(turn: ScriptedTurn): StreamEvent[] {
  const deltas = typeof turn.text === 'string' ? [turn.text] : (turn.text ?? []);
  const calls = (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${++nextCallNumber}`,
    name: call.name,
    input: call.rawInput === undefined ? (call.input ?? {}) : {},
    ...(call.rawInput === undefined ? {} : { rawInput: call.rawInput }),
  }));
  const usage = usageOf(turn.usage);
  const content: ContentBlock[] = [];
  const fullText = deltas.join('');
  if (fullText.length > 0) content.push({ type: 'text', text: fullText });
  for (const call of calls) content.push({ type: 'tool_use', ...call });
  const message: Message = { id: newMessageId('msg'), role: 'assistant', content };
  const events: StreamEvent[] = [];
  if (turn.reset !== undefined) {
    events.push({ type: 'message-start', id: `${message.id}-attempt-1`, model: turn.model });
    events.push({ type: 'text-delta', text: turn.reset.text });
    events.push({
      type: 'stream-reset',
      attempt: 2,
      reason: turn.reset.reason,
      usage: usageOf(turn.reset.usage),
    });
  }
  events.push({ type: 'message-start', id: message.id, model: turn.model });
  for (const text of deltas) events.push({ type: 'text-delta', text });
  for (const call of calls) {
    events.push({ type: 'tool-call-start', id: call.id, name: call.name });
    events.push({
      type: 'tool-call-delta',
      id: call.id,
      json: call.rawInput ?? JSON.stringify(call.input),
    });
    events.push({ type: 'tool-call-end', id: call.id, name: call.name, input: call.input });
  }
  events.push({ type: 'usage', usage });
  events.push({
    type: 'message-end',
    stopReason: turn.stopReason ?? (calls.length > 0 ? 'tool-use' : 'end'),
    message,
    usage,
    model: turn.model,
  });
  return events;
}

function usageOf(partial: Partial<Usage> | undefined): Usage {
  return {
    inputTokens: partial?.inputTokens ?? 0,
    outputTokens: partial?.outputTokens ?? 0,
    cacheReadTokens: partial?.cacheReadTokens ?? 0,
    cacheWriteTokens: partial?.cacheWriteTokens ?? 0,
  };
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new CancelledError('Stream aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError('Stream aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles only when `signal` aborts (never without one), rejecting with `CancelledError`. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => {
    if (signal?.aborted) reject(new CancelledError('Stream aborted'));
    else
      signal?.addEventListener('abort', () => reject(new CancelledError('Stream aborted')), {
        once: true,
      });
  });
}

/**
 * A Provider that plays scripted assistant turns and records what it was asked. Each call to
 * `stream` takes the next turn of the script; a call past the end of a list script throws.
 * `@mh/providers`' public `scripted()` is a layer over it.
 */
export class ScriptedProvider implements Provider {
  /** Provider name, as spans and errors report it. */
  readonly name: string = 'scripted';
  /** Every request received, in order (none with `recordRequests: false`). */
  readonly requests: ModelRequest[] = [];
  /** Calls to `stream` so far, recorded or not. */
  calls = 0;
  /** Events handed out so far, over all streams (counted as each is yielded). */
  produced = 0;
  /** Whether it claims a native typed-output form (`Provider.nativeOutput`; default false). */
  readonly nativeOutput: boolean;
  readonly #script: Script;
  readonly #recordRequests: boolean;

  /** Plays `script`: turn `n` answers request `n`. */
  constructor(script: Script, options: ScriptedProviderOptions = {}) {
    this.#script = script;
    this.#recordRequests = options.recordRequests !== false;
    this.nativeOutput = options.nativeOutput === true;
  }

  /** Records `request` and streams the next turn; throws when a list script is exhausted. */
  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<StreamEvent> {
    const index = this.calls++;
    if (this.#recordRequests) this.requests.push(request);
    const turn =
      typeof this.#script === 'function' ? this.#script(index, request) : this.#script[index];
    if (turn === undefined) throw new Error(`script exhausted at request ${index + 1}`);
    return this.#play(turn, options?.signal);
  }

  async *#play(turn: ScriptedTurn, signal: AbortSignal | undefined): AsyncGenerator<StreamEvent> {
    const events = turn.events ?? scriptedEvents(turn);
    const cut = turn.error !== undefined || turn.hang !== undefined || turn.omitEnd === true;
    const count = cut ? (turn.eventsBeforeStop ?? events.length - 2) : events.length;
    for (const event of events.slice(0, count)) {
      if (signal?.aborted) throw new CancelledError('Stream aborted');
      if (turn.delayMs !== undefined) await wait(turn.delayMs, signal);
      this.produced++;
      yield event;
    }
    if (turn.hang === 'until-aborted') {
      await untilAborted(signal).catch((error: unknown) => {
        throw turn.error ?? error;
      });
    }
    if (turn.error !== undefined) throw turn.error;
    if (turn.hang === 'forever') await new Promise<never>(() => {});
  }
}
