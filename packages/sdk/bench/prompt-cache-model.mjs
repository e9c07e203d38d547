// A model of Anthropic's prompt cache as @mh/providers/anthropic drives it, for the compaction
// bench: which part of each prompt is a cache read, a cache write or uncached.

/** Anthropic looks back at most this many blocks from a breakpoint for an earlier cache entry. */
const LOOKBACK_BLOCKS = 20;
/** Prices relative to an uncached input token: cache read 0.1, 5-minute cache write 1.25. */
export const READ_PRICE = 0.1;
export const WRITE_PRICE = 1.25;

/**
 * Anthropic's prompt cache as our adapter drives it, to price each prompt: breakpoints after
 * system and tools, after a leading summary, and (with `moving`) after the newest message. A
 * request reads the longest cached prefix ending at one of its breakpoints or up to 20 blocks
 * before one, and writes the rest up to its last breakpoint. Every message here is one block;
 * the minimum cacheable size and the 5-minute lifetime are left out (the run takes seconds).
 */
export class CacheModel {
  #moving;
  #entries = [];
  read = 0;
  written = 0;
  uncached = 0;

  constructor(moving) {
    this.#moving = moving;
  }

  /** Prices one request; `tokensOf(k)` is the real size of system, tools and the first k messages. */
  price(messages, tokensOf) {
    const breakpoints = [0];
    if (messages[0]?.meta?.compaction) breakpoints.push(1);
    if (this.#moving) breakpoints.push(messages.length);
    let hit = -1;
    for (const entry of this.#entries) {
      const length = entry.length;
      if (length <= hit) continue;
      if (!breakpoints.some((at) => at >= length && at - length <= LOOKBACK_BLOCKS)) continue;
      if (entry.every((message, index) => messages[index] === message)) hit = length;
    }
    const last = Math.max(...breakpoints);
    for (const at of breakpoints) if (at > hit) this.#entries.push(messages.slice(0, at));
    const read = hit >= 0 ? tokensOf(hit) : 0;
    this.read += read;
    this.written += tokensOf(last) - read;
    this.uncached += tokensOf(messages.length) - tokensOf(last);
  }

  /** Input cost in uncached-token equivalents. */
  get cost() {
    return this.read * READ_PRICE + this.written * WRITE_PRICE + this.uncached;
  }
}
