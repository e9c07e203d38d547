import type { ContextMeterState } from '../src/compaction/context-meter.js';
import type { Message } from '../src/messages/message.js';
import { estimateMessageTokens, estimateRequestTokens } from '../src/messages/tokens.js';
import { promptTokens, type Usage } from '../src/messages/usage.js';
import type { ModelRequest } from '../src/ports/provider.js';

/**
 * The context meter as it was before it became incremental: every request estimated from scratch.
 * The property test holds `ContextMeter` to it.
 */
export class ReferenceContextMeter {
  #realSum = 0;
  #estimatedSum = 0;
  #growthReal = 0;
  #growthEstimated = 0;
  #baseline:
    | {
        tokens: number;
        estimated: number;
        messages: readonly Message[];
        system?: string;
        toolsKey: string;
      }
    | undefined;

  get calibration(): number {
    return clampRatio(this.#growthReal, this.#growthEstimated);
  }

  observe(request: ModelRequest, usage: Usage): void {
    const real = promptTokens(usage);
    if (!(real > 0)) return;
    const estimated = estimateRequestTokens(request);
    const base = this.#baseline;
    if (base && this.#comparable(base, request) && isPrefix(base.messages, request.messages))
      this.#addGrowth(real - base.tokens, estimated - base.estimated);
    this.#realSum += real;
    this.#estimatedSum += estimated;
    this.#baseline = { tokens: real, estimated, ...this.#key(request) };
  }

  restore(states: readonly ContextMeterState[], request: ModelRequest | undefined): void {
    this.#realSum = 0;
    this.#estimatedSum = 0;
    this.#growthReal = 0;
    this.#growthEstimated = 0;
    this.#baseline = undefined;
    let previous: ContextMeterState | undefined;
    for (const state of states) {
      if (!(state.promptTokens > 0 && state.estimatedTokens > 0)) continue;
      this.#realSum += state.promptTokens;
      this.#estimatedSum += state.estimatedTokens;
      if (previous)
        this.#addGrowth(
          state.promptTokens - previous.promptTokens,
          state.estimatedTokens - previous.estimatedTokens,
        );
      previous = state;
    }
    if (previous && request)
      this.#baseline = {
        tokens: previous.promptTokens,
        estimated: previous.estimatedTokens,
        ...this.#key(request),
      };
  }

  invalidate(): void {
    this.#baseline = undefined;
  }

  estimate(request: ModelRequest): number {
    const calibration = this.calibration;
    const base = this.#baseline;
    if (base && this.#comparable(base, request)) {
      const delta = isPrefix(base.messages, request.messages)
        ? sum(request.messages.slice(base.messages.length))
        : estimateRequestTokens(request) - base.estimated;
      return Math.max(0, base.tokens + Math.ceil(delta * calibration));
    }
    return Math.ceil(
      estimateRequestTokens(request) * clampRatio(this.#realSum, this.#estimatedSum),
    );
  }

  estimateMessages(messages: readonly Message[]): number {
    return Math.ceil(sum(messages) * this.calibration);
  }

  #key(request: ModelRequest): { messages: Message[]; system?: string; toolsKey: string } {
    return {
      messages: request.messages.slice(),
      system: request.system,
      toolsKey: request.tools.map((tool) => tool.name).join('\u0000'),
    };
  }

  #comparable(base: { system?: string; toolsKey: string }, request: ModelRequest): boolean {
    return (
      base.system === request.system &&
      base.toolsKey === request.tools.map((tool) => tool.name).join('\u0000')
    );
  }

  #addGrowth(real: number, estimated: number): void {
    if (real > 0 && estimated > 0) {
      this.#growthReal += real;
      this.#growthEstimated += estimated;
    }
  }
}

function clampRatio(real: number, estimated: number): number {
  if (real <= 0 || estimated <= 0) return 1;
  return Math.min(4, Math.max(1 / 4, real / estimated));
}

function sum(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

function isPrefix(prefix: readonly Message[], messages: readonly Message[]): boolean {
  return (
    prefix.length <= messages.length &&
    prefix.every((message, index) => messages[index] === message)
  );
}
