import type { Usage } from '../src/messages/usage.js';
import type { ModelRequest, Provider, StreamEvent } from '../src/ports/provider.js';
import type { ManualClock } from '../src/testing/manual-clock.js';
import { type ScriptedTurn, scriptedEvents } from '../src/testing/scripted-provider.js';

/** One model call of a `TimedProvider`: a scripted turn plus timing and an optional retry. */
export interface TimedTurn
  extends Pick<ScriptedTurn, 'text' | 'toolCalls' | 'usage' | 'stopReason' | 'model'> {
  /** Milliseconds the clock moves before the first chunk (the time to first token). */
  readonly firstChunkMs?: number;
  /** Milliseconds the clock moves after the first chunk, before `message-end`. */
  readonly restMs?: number;
  /** A broken first attempt: it streams `text`, then a `stream-reset` with this usage. */
  readonly reset?: { readonly text: string; readonly usage?: Usage; readonly reason?: string };
  /** Thrown instead of streaming (a failure before the first event). */
  readonly error?: Error;
}

/**
 * A provider whose calls advance a `ManualClock`, so span durations and times to first token are
 * exact. Calls take the turns in order; the requests are kept.
 */
export class TimedProvider implements Provider {
  readonly name = 'timed';
  readonly requests: ModelRequest[] = [];
  readonly #turns: readonly TimedTurn[];
  readonly #clock: ManualClock | undefined;

  constructor(turns: readonly TimedTurn[], clock?: ManualClock) {
    this.#turns = turns;
    this.#clock = clock;
  }

  stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    const turn = this.#turns[this.requests.length];
    this.requests.push(request);
    if (turn === undefined) throw new Error('script exhausted');
    return this.#play(turn);
  }

  async *#play(turn: TimedTurn): AsyncGenerator<StreamEvent> {
    if (turn.error) throw turn.error;
    // The broken attempt is timed here, so the scripted events are those of the turn alone.
    const { reset: _reset, ...scripted } = turn;
    const events = scriptedEvents(scripted);
    let first = true;
    if (turn.reset) {
      this.#clock?.advance(turn.firstChunkMs ?? 0);
      first = false;
      yield { type: 'message-start' };
      yield { type: 'text-delta', text: turn.reset.text };
      yield {
        type: 'stream-reset',
        attempt: 2,
        reason: turn.reset.reason ?? 'network: connection reset',
        usage: turn.reset.usage,
      };
    }
    for (const event of events) {
      const chunk = event.type === 'text-delta' || event.type === 'tool-call-start';
      if (chunk && first) {
        this.#clock?.advance(turn.firstChunkMs ?? 0);
        first = false;
      }
      if (event.type === 'message-end') this.#clock?.advance(turn.restMs ?? 0);
      yield event;
    }
  }
}
