import type { StreamEvent } from '../ports/provider.js';
import { parsePartialJson } from './partial-json.js';
import type { ResolvedOutput } from './typed-output.js';

/** A typed answer as it streams: the partial value parsed so far (`agent.stream`). */
export interface OutputDelta {
  readonly type: 'output-delta';
  /**
   * The answer so far, in the shape the schema describes but not yet validated: each partial
   * value extends the one before (keys and elements are only added, only the last string grows).
   */
  readonly partial: unknown;
}

/**
 * Follows one model call's stream and tells when the typed answer in it grew: the text under the
 * `native` strategy, the final tool's arguments under `tool`. A stream that can no longer be JSON
 * stops producing deltas (the answer is judged when the call ends).
 */
export class OutputDeltas {
  readonly #output: ResolvedOutput;
  #json = '';
  /** The final tool call being streamed (`tool` strategy). */
  #callId: string | undefined;
  #last: string | undefined;
  #broken = false;

  constructor(output: ResolvedOutput) {
    this.#output = output;
  }

  /** The delta `event` makes, if the answer grew. */
  see(event: StreamEvent): OutputDelta | undefined {
    switch (event.type) {
      case 'message-start':
      case 'stream-reset':
        this.#reset();
        this.#callId = undefined;
        return undefined;
      case 'text-delta':
        return this.#output.strategy === 'native' ? this.#grow(event.text) : undefined;
      case 'tool-call-start':
        if (this.#output.strategy === 'tool' && event.name === this.#output.name) {
          this.#reset();
          this.#callId = event.id;
        }
        return undefined;
      case 'tool-call-delta':
        return event.id === this.#callId ? this.#grow(event.json) : undefined;
      default:
        return undefined;
    }
  }

  #reset(): void {
    this.#json = '';
    this.#last = undefined;
    this.#broken = false;
  }

  #grow(text: string): OutputDelta | undefined {
    if (this.#broken || typeof text !== 'string' || text === '') return undefined;
    this.#json += text;
    let value: unknown;
    try {
      value = parsePartialJson(this.#json).value;
    } catch {
      this.#broken = true;
      return undefined;
    }
    if (value === undefined) return undefined;
    const shown = JSON.stringify(value);
    if (shown === this.#last) return undefined;
    this.#last = shown;
    const partial = this.#output.unwrap(value);
    return partial === undefined ? undefined : { type: 'output-delta', partial };
  }
}
