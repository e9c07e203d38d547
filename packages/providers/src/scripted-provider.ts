import {
  ConfigError,
  type ModelRequest,
  type Provider,
  ProviderError,
  type StreamEvent,
  type StreamOptions,
} from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import { playEvents, type TurnContent, turnEvents } from './stream-turn.js';

/** One scripted model call: a turn to stream, optionally failing or slow. */
export interface ScriptedTurn extends TurnContent {
  /** Throw this instead of streaming (before any event). */
  readonly error?: Error;
  /** Stream this many events, then throw `error` (a stream that breaks mid-way). */
  readonly failAfterEvents?: number;
  /** Pause before each event, in milliseconds. */
  readonly delayMs?: number;
  /** Never finish: after the events before `hangAfterEvents`, wait until aborted. */
  readonly hangAfterEvents?: number;
}

const TURN_KEYS: readonly string[] = [
  'thinking',
  'text',
  'toolCalls',
  'usage',
  'stopReason',
  'error',
  'failAfterEvents',
  'delayMs',
  'hangAfterEvents',
];

/** A scripted step: a fixed turn, or a function of the request (to answer with what it sees). */
export type ScriptStep = ScriptedTurn | ((request: ModelRequest) => ScriptedTurn);

/** Options of `scripted`. */
export interface ScriptedOptions {
  /** Model id reported in events (default: the request's model). */
  readonly model?: string;
  /** When the script runs out: throw a `ProviderError` (default) or repeat the last step. */
  readonly whenExhausted?: 'error' | 'repeat-last';
  /** Characters per text delta (default 12). */
  readonly chunkChars?: number;
  /**
   * Keep every request in `requests` (default true). Long benchmarks turn it off: each request
   * holds a snapshot of the whole history, so keeping them all grows memory with the square of
   * the run's length.
   */
  readonly recordRequests?: boolean;
}

/**
 * A provider that plays a script of assistant turns, for tests: text, tool calls, usage, injected
 * errors, delays, hangs. It records every request it receives (`requests`) so a test can assert on
 * what the loop sent, and emits exactly the StreamEvents a real provider emits.
 */
export class ScriptedProvider implements Provider {
  readonly name: string = 'scripted';
  /** Every request received, in order (deep copies are not made: do not mutate them). */
  readonly requests: ModelRequest[] = [];
  readonly #steps: readonly ScriptStep[];
  readonly #options: ScriptedOptions;
  #played = 0;

  constructor(steps: readonly ScriptStep[], options: ScriptedOptions = {}) {
    if (!Array.isArray(steps))
      throw new ConfigError('turns', 'expected an array of scripted turns');
    steps.forEach((step, index) => {
      if (step === null || (typeof step !== 'object' && typeof step !== 'function')) {
        throw new ConfigError(
          `turns[${index}]`,
          'expected a turn object or a function returning one',
        );
      }
      // A misspelt key (`txt`) would otherwise play an empty turn without a word.
      if (typeof step === 'object') {
        assertOptions(step, TURN_KEYS, `turns[${index}]`);
        checkDelay(step.delayMs, `turns[${index}].delayMs`);
      }
    });
    assertOptions(options, ['model', 'whenExhausted', 'chunkChars', 'recordRequests'], 'options');
    if (
      options.whenExhausted !== undefined &&
      !['error', 'repeat-last'].includes(options.whenExhausted)
    ) {
      throw new ConfigError('whenExhausted', "expected 'error' or 'repeat-last'");
    }
    this.#steps = steps;
    this.#options = options;
  }

  /** How many scripted steps have not been played yet. */
  get remaining(): number {
    return Math.max(0, this.#steps.length - this.#played);
  }

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamEvent> {
    const index = this.#played++;
    if (this.#options.recordRequests !== false) this.requests.push(request);
    const last = this.#steps[this.#steps.length - 1];
    const step =
      index < this.#steps.length
        ? this.#steps[index]
        : this.#options.whenExhausted === 'repeat-last'
          ? last
          : undefined;
    const model = this.#options.model ?? request.model;
    const chunkChars = this.#options.chunkChars;
    return (async function* play(): AsyncGenerator<StreamEvent> {
      if (step === undefined) {
        throw new ProviderError(
          `Scripted provider has no turn ${index + 1} (script has ${index})`,
          {
            kind: 'bad-request',
            provider: 'scripted',
          },
        );
      }
      const turn = typeof step === 'function' ? step(request) : step;
      if (turn.error && turn.failAfterEvents === undefined) throw turn.error;
      const events = turnEvents(request, turn, { model, chunkChars });
      const hangAt = turn.hangAfterEvents;
      const played = hangAt === undefined ? events : events.slice(0, hangAt);
      yield* playEvents(played, {
        model,
        delayMs: turn.delayMs,
        signal: options.signal,
        failAfter:
          turn.failAfterEvents !== undefined
            ? {
                events: turn.failAfterEvents,
                error: turn.error ?? new ProviderError('Stream broke', { kind: 'network' }),
              }
            : undefined,
      });
      if (hangAt !== undefined) await hangUntilAborted(options.signal);
    })();
  }
}

function hangUntilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener(
      'abort',
      () => reject(new ProviderError('Stream aborted', { kind: 'network', retryable: false })),
      {
        once: true,
      },
    );
  });
}

/**
 * Creates a `ScriptedProvider` that plays `turns` in order, one per model call.
 * @example
 * const provider = scripted([
 *   { toolCalls: [{ name: 'calculator', input: { expression: '6*7' } }] },
 *   { text: '42' },
 * ]);
 */
export function scripted(
  turns: readonly ScriptStep[],
  options?: ScriptedOptions,
): ScriptedProvider {
  return new ScriptedProvider(turns, options);
}

/** A turn's delay becomes a timer per event: a number >= 0 a Node timer can wait. */
function checkDelay(delayMs: unknown, field: string): void {
  if (delayMs === undefined) return;
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new ConfigError(field, `expected a number >= 0, got ${String(delayMs)}`);
  }
  assertTimerMs(field, delayMs);
}
