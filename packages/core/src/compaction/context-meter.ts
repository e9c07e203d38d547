import type { Message } from '../messages/message.js';
import { estimateMessageTokens, estimateTokens } from '../messages/tokens.js';
import { promptTokens, type Usage } from '../messages/usage.js';
import type { JsonSchema, ModelRequest } from '../ports/provider.js';
import { isAppendOnly } from '../support/append-only.js';

/** Calibration never moves the estimate further than this factor either way. */
const MAX_CALIBRATION = 4;

/** A context size and how it was reached. */
export interface ContextSize {
  /** Tokens of the whole prompt (system, tools, messages). */
  readonly tokens: number;
  /** Of those, tokens counted by the provider for the earlier request this one is anchored on (0: none). */
  readonly measuredTokens: number;
  /** The factor applied to estimated tokens (real ÷ estimated growth so far; 1 at first). */
  readonly calibration: number;
}

/** What a meter remembers across a resume (kept in checkpoint metadata). */
export interface ContextMeterState {
  /** Real prompt tokens of the last measured request. */
  readonly promptTokens: number;
  /** Our estimate of that same request. */
  readonly estimatedTokens: number;
}

interface Baseline {
  readonly tokens: number;
  readonly estimated: number;
  /**
   * The messages of the measured request (by identity: a rewritten message is a new object). The
   * meter's own copy: the next baseline extends it in place when its request only appended.
   */
  readonly messages: Message[];
  /**
   * The append-only array (`markAppendOnly`) `messages` were read from, if any: while it grows,
   * `messages` stays its prefix without checking.
   */
  readonly source?: readonly Message[];
  /** Estimated tokens of `messages` alone. */
  readonly messageTokens: number;
  readonly system?: string;
  readonly toolsKey: string;
}

/**
 * Judges the context size from real usage. Every size is anchored on the provider's prompt-token
 * count for the last request (uncached input + cache reads + cache writes): the new request's
 * size is that count plus the estimated difference between the two requests, scaled by the
 * calibration. Anchoring cancels what the estimator cannot see but every request carries (the
 * vendor's hidden tool-use prompt, framing), so it holds after a compaction too, when the
 * difference is negative. The calibration is the ratio of real to estimated *growth* between
 * consecutive measured requests — again free of those fixed overheads. Without a comparable
 * measurement (a first request, another system prompt or tool set) the whole request is
 * estimated and scaled by the plain real-to-estimated ratio. One meter follows one conversation
 * across runs.
 *
 * Its figures equal estimating every request from scratch, but cost only what changed: each
 * message is estimated once (messages are immutable, so it is cached by identity), and a request
 * that extends the last measured one adds the new messages to its running total. A compaction
 * (trimmed or summarised messages are new objects) costs one pass over cached figures. A
 * history marked `markAppendOnly` (the loop's) is not even compared again: only its new messages are read.
 */
export class ContextMeter {
  #realSum = 0;
  #estimatedSum = 0;
  #growthReal = 0;
  #growthEstimated = 0;
  #baseline: Baseline | undefined;
  readonly #messageTokens = new WeakMap<Message, number>();
  readonly #schemaTokens = new WeakMap<object, number>();
  #system: string | undefined;
  #systemTokens = 0;

  /** Real ÷ estimated growth between consecutive measured requests, within [1/4, 4]; 1 before any. */
  get calibration(): number {
    return clampRatio(this.#growthReal, this.#growthEstimated);
  }

  /**
   * Records the real usage of `request`; a call that reported no prompt tokens is ignored. Returns
   * the estimated tokens of the whole request (as `estimateRequestTokens` counts them), what
   * `ContextMeterState.estimatedTokens` keeps.
   */
  observe(request: ModelRequest, usage: Usage): number {
    const base = this.#baseline;
    const grows = base !== undefined && startsWithBaseline(base, request.messages);
    const messageTokens = grows
      ? base.messageTokens + this.#sum(request.messages, base.messages.length)
      : this.#sum(request.messages, 0);
    const estimated = this.#fixedTokens(request) + messageTokens;
    const real = promptTokens(usage);
    if (!(real > 0)) return estimated;
    const key = toolsKey(request);
    if (grows && base.system === request.system && base.toolsKey === key) {
      this.#addGrowth(real - base.tokens, estimated - base.estimated);
    }
    this.#realSum += real;
    this.#estimatedSum += estimated;
    let messages: Message[];
    if (grows) {
      messages = base.messages;
      for (let index = messages.length; index < request.messages.length; index++)
        messages.push(request.messages[index] as Message);
    } else {
      messages = request.messages.slice();
    }
    this.#baseline = {
      tokens: real,
      estimated,
      messages,
      source: appendOnlySource(request.messages),
      messageTokens,
      system: request.system,
      toolsKey: key,
    };
    return estimated;
  }

  /**
   * Seeds the meter after a resume (replacing what it knew): `states` are the stored
   * measurements, oldest first, and `request` the last measured request's prompt (the history as
   * it was sent). Sizes are then recomputed from real usage, not guessed.
   */
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
    if (previous && request) {
      this.#baseline = {
        tokens: previous.promptTokens,
        estimated: previous.estimatedTokens,
        messages: request.messages.slice(),
        source: appendOnlySource(request.messages),
        messageTokens: this.#sum(request.messages, 0),
        system: request.system,
        toolsKey: toolsKey(request),
      };
    }
  }

  /** Forgets the anchoring measurement (another conversation); the calibration stays. */
  invalidate(): void {
    this.#baseline = undefined;
  }

  /** The size `request` would have. */
  measure(request: ModelRequest): ContextSize {
    const calibration = this.calibration;
    const base = this.#baseline;
    if (base && base.system === request.system && base.toolsKey === toolsKey(request)) {
      const delta = startsWithBaseline(base, request.messages)
        ? this.#sum(request.messages, base.messages.length)
        : this.#requestTokens(request) - base.estimated;
      return {
        tokens: Math.max(0, base.tokens + Math.ceil(delta * calibration)),
        measuredTokens: base.tokens,
        calibration,
      };
    }
    return {
      tokens: Math.ceil(
        this.#requestTokens(request) * clampRatio(this.#realSum, this.#estimatedSum),
      ),
      measuredTokens: 0,
      calibration,
    };
  }

  /** The size of a request whose history was rewritten (a compaction's candidate). */
  estimate(request: ModelRequest): number {
    return this.measure(request).tokens;
  }

  /** Estimated tokens of some messages, scaled by the calibration. */
  estimateMessages(messages: readonly Message[]): number {
    return Math.ceil(this.#sum(messages, 0) * this.calibration);
  }

  /** `estimateRequestTokens(request)`, from the cached figures. */
  #requestTokens(request: ModelRequest): number {
    return this.#fixedTokens(request) + this.#sum(request.messages, 0);
  }

  /** Estimated tokens of `messages` from index `from` on, each message estimated once. */
  #sum(messages: readonly Message[], from: number): number {
    const cache = this.#messageTokens;
    let sum = 0;
    for (let index = from; index < messages.length; index++) {
      const message = messages[index] as Message;
      let tokens = cache.get(message);
      if (tokens === undefined) {
        tokens = estimateMessageTokens(message);
        cache.set(message, tokens);
      }
      sum += tokens;
    }
    return sum;
  }

  /** Estimated tokens of the system prompt and tool specs (`estimateRequestTokens` without messages). */
  #fixedTokens(request: ModelRequest): number {
    if (request.system !== this.#system) {
      this.#system = request.system;
      this.#systemTokens = request.system ? estimateTokens(request.system) : 0;
    }
    let sum = this.#systemTokens;
    for (const tool of request.tools)
      sum +=
        estimateTokens(tool.name) +
        estimateTokens(tool.description) +
        this.#schemaTokensOf(tool.inputSchema);
    return sum;
  }

  /** A tool schema's tokens; schema objects are built once per tool, so cached by identity. */
  #schemaTokensOf(schema: JsonSchema): number {
    if (typeof schema !== 'object' || schema === null)
      return estimateTokens(JSON.stringify(schema));
    let tokens = this.#schemaTokens.get(schema);
    if (tokens === undefined) {
      tokens = estimateTokens(JSON.stringify(schema));
      this.#schemaTokens.set(schema, tokens);
    }
    return tokens;
  }

  #addGrowth(real: number, estimated: number): void {
    // Only growth both sides agree on calibrates (a retry or a rewrite can shrink either).
    if (real > 0 && estimated > 0) {
      this.#growthReal += real;
      this.#growthEstimated += estimated;
    }
  }
}

function clampRatio(real: number, estimated: number): number {
  if (real <= 0 || estimated <= 0) return 1;
  return Math.min(MAX_CALIBRATION, Math.max(1 / MAX_CALIBRATION, real / estimated));
}

function toolsKey(request: ModelRequest): string {
  return request.tools.map((tool) => tool.name).join('\u0000');
}

/** Whether `messages` starts with the baseline's messages (checked only when it must be). */
function startsWithBaseline(base: Baseline, messages: readonly Message[]): boolean {
  if (base.source === messages) return messages.length >= base.messages.length;
  return isPrefix(base.messages, messages);
}

function appendOnlySource(messages: readonly Message[]): readonly Message[] | undefined {
  return isAppendOnly(messages) ? messages : undefined;
}

function isPrefix(prefix: readonly Message[], messages: readonly Message[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (messages[index] !== prefix[index]) return false;
  }
  return true;
}
