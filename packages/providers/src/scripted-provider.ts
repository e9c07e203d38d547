import { ConfigError, type ModelRequest, ProviderError } from '@mh/core';
import { assertOptions, assertTimerMs } from '@mh/core/internal';
import {
  ScriptedProvider as KitScriptedProvider,
  type ScriptedTurn as KitTurn,
} from '@mh/core/testing';
import { type TurnContent, turnEvents } from './stream-turn.js';

/**
 * One scripted model call: a turn to stream, optionally failing or slow. Its events are built
 * as the fake provider builds them (text in `chunkChars` pieces, usage estimated when not given),
 * then played by `@mh/core/testing`'s scripted provider.
 */
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
 * what the loop sent, and emits exactly the StreamEvents a real provider emits. It is
 * `@mh/core/testing`'s `ScriptedProvider` with this package's turn vocabulary, options and checks:
 * a step is turned into the kit's turn with its events built here, and the kit plays them.
 */
export class ScriptedProvider extends KitScriptedProvider {
  readonly #steps: number;

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
    super((index, request) => kitTurn(stepAt(steps, index, options), index, request, options), {
      recordRequests: options.recordRequests !== false,
    });
    this.#steps = steps.length;
  }

  /** How many scripted steps have not been played yet. */
  get remaining(): number {
    return Math.max(0, this.#steps - this.calls);
  }
}

/** The step that answers call `index`: past the end, the last one or none (`whenExhausted`). */
function stepAt(
  steps: readonly ScriptStep[],
  index: number,
  options: ScriptedOptions,
): ScriptStep | undefined {
  if (index < steps.length) return steps[index];
  return options.whenExhausted === 'repeat-last' ? steps[steps.length - 1] : undefined;
}

/**
 * The kit's turn for `step`: its events, cut where the step fails or hangs. Every failure,
 * a missing step or a step function that throws too, is thrown by the stream, not by `stream()`.
 */
function kitTurn(
  step: ScriptStep | undefined,
  index: number,
  request: ModelRequest,
  options: ScriptedOptions,
): KitTurn {
  if (step === undefined) {
    const error = new ProviderError(
      `Scripted provider has no turn ${index + 1} (script has ${index})`,
      { kind: 'bad-request', provider: 'scripted' },
    );
    return { events: [], error, eventsBeforeStop: 0 };
  }
  let turn: ScriptedTurn;
  try {
    turn = typeof step === 'function' ? step(request) : step;
  } catch (error) {
    return { events: [], error, eventsBeforeStop: 0 };
  }
  const delayMs = turn.delayMs ? turn.delayMs : undefined;
  if (turn.error && turn.failAfterEvents === undefined)
    return { events: [], error: turn.error, eventsBeforeStop: 0 };
  const model = options.model ?? request.model;
  const events = turnEvents(request, turn, { model, chunkChars: options.chunkChars });
  const failAt = turn.failAfterEvents;
  const hangAt = turn.hangAfterEvents;
  // As a stream that breaks after its last event would: one too short to break ends normally.
  if (
    failAt !== undefined &&
    failAt <= events.length &&
    (hangAt === undefined || failAt <= hangAt)
  ) {
    const error = turn.error ?? new ProviderError('Stream broke', { kind: 'network' });
    return { events, delayMs, error, eventsBeforeStop: failAt };
  }
  if (hangAt !== undefined) {
    const error = new ProviderError('Stream aborted', { kind: 'network', retryable: false });
    return { events, delayMs, hang: 'until-aborted', error, eventsBeforeStop: hangAt };
  }
  return { events, delayMs };
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
