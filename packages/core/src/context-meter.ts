import type { Message } from './messages.js';
import type { ModelRequest } from './provider.js';
import { estimateMessageTokens, estimateRequestTokens } from './tokens.js';
import { promptTokens, type Usage } from './usage.js';

/** Calibration never moves the estimate further than this factor either way. */
const MAX_CALIBRATION = 4;

/** A context size and how it was reached. */
export interface ContextSize {
  /** Tokens of the whole prompt (system, tools, messages). */
  readonly tokens: number;
  /** Of those, tokens counted by the provider for an earlier request this one extends (0: none). */
  readonly measuredTokens: number;
  /** The calibration factor applied to the estimated part (real ÷ estimated so far; 1 at first). */
  readonly calibration: number;
}

/** What a meter remembers across a resume (kept in checkpoint metadata). */
export interface ContextMeterState {
  /** Real prompt tokens of the last measured request. */
  readonly promptTokens: number;
  /** Our estimate of that same request. */
  readonly estimatedTokens: number;
}

/**
 * Judges the context size from real usage: the provider's prompt-token count for the last request
 * (uncached input + cache reads + cache writes), plus an estimate of what was appended since,
 * scaled by the running ratio of real to estimated tokens. When the history changed other than by
 * appending (a compaction, a rewind), the whole request is estimated and scaled. One meter follows
 * one conversation across runs.
 */
export class ContextMeter {
  #realSum = 0;
  #estimatedSum = 0;
  #baseline:
    | { tokens: number; ids: readonly string[]; system?: string; toolsKey: string }
    | undefined;

  /** Real ÷ estimated tokens over the requests measured so far, within [1/4, 4]; 1 before any. */
  get calibration(): number {
    if (this.#realSum <= 0 || this.#estimatedSum <= 0) return 1;
    const ratio = this.#realSum / this.#estimatedSum;
    return Math.min(MAX_CALIBRATION, Math.max(1 / MAX_CALIBRATION, ratio));
  }

  /** Records the real usage of `request`; a call that reported no prompt tokens is ignored. */
  observe(request: ModelRequest, usage: Usage): void {
    const real = promptTokens(usage);
    if (!(real > 0)) return;
    const estimated = estimateRequestTokens(request);
    this.#realSum += real;
    this.#estimatedSum += estimated;
    this.#baseline = {
      tokens: real,
      ids: request.messages.map((message) => message.id),
      system: request.system,
      toolsKey: toolsKey(request),
    };
  }

  /**
   * Seeds the meter after a resume (replacing what it knew): `states` are the stored
   * measurements, oldest first, and `request` the last measured request's prompt (the history as
   * it was sent). Sizes are then recomputed from real usage, not guessed.
   */
  restore(states: readonly ContextMeterState[], request: ModelRequest | undefined): void {
    this.#realSum = 0;
    this.#estimatedSum = 0;
    this.#baseline = undefined;
    for (const state of states) {
      if (state.promptTokens > 0 && state.estimatedTokens > 0) {
        this.#realSum += state.promptTokens;
        this.#estimatedSum += state.estimatedTokens;
      }
    }
    const last = states.at(-1);
    if (last && request && last.promptTokens > 0) {
      this.#baseline = {
        tokens: last.promptTokens,
        ids: request.messages.map((message) => message.id),
        system: request.system,
        toolsKey: toolsKey(request),
      };
    }
  }

  /** Forgets the last measurement (the history was rewritten); the calibration stays. */
  invalidate(): void {
    this.#baseline = undefined;
  }

  /** The size `request` would have. */
  measure(request: ModelRequest): ContextSize {
    const calibration = this.calibration;
    const base = this.#baseline;
    if (
      base &&
      base.system === request.system &&
      base.toolsKey === toolsKey(request) &&
      isIdPrefix(base.ids, request.messages)
    ) {
      let added = 0;
      for (let index = base.ids.length; index < request.messages.length; index++) {
        added += estimateMessageTokens(request.messages[index] as Message);
      }
      return {
        tokens: base.tokens + Math.ceil(added * calibration),
        measuredTokens: base.tokens,
        calibration,
      };
    }
    return {
      tokens: Math.ceil(estimateRequestTokens(request) * calibration),
      measuredTokens: 0,
      calibration,
    };
  }

  /** The size of a request whose history was rewritten (no measured prefix): estimate × calibration. */
  estimate(request: ModelRequest): number {
    return Math.ceil(estimateRequestTokens(request) * this.calibration);
  }

  /** Estimated tokens of some messages, scaled by the calibration. */
  estimateMessages(messages: readonly Message[]): number {
    let sum = 0;
    for (const message of messages) sum += estimateMessageTokens(message);
    return Math.ceil(sum * this.calibration);
  }
}

function toolsKey(request: ModelRequest): string {
  return request.tools.map((tool) => tool.name).join('\u0000');
}

function isIdPrefix(ids: readonly string[], messages: readonly Message[]): boolean {
  if (ids.length > messages.length) return false;
  for (let index = 0; index < ids.length; index++) {
    if (messages[index]?.id !== ids[index]) return false;
  }
  return true;
}
