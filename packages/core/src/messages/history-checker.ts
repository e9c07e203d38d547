import { type HistoryViolation, validateFrom } from './history.js';
import type { ContentBlock, Message } from './message.js';
import type { SettledPrefix } from './settled-histories.js';

/**
 * Validates a history that only grows, checking each message once, so that checking before every
 * provider request costs the same on turn 1,000 as on turn 1. A message's checks are final once
 * the history is valid with it as the last message (a user message: its results matched the calls
 * before it). A rewritten history (one no longer holding the last checked message where it was,
 * as after a compaction), or any violation, starts the next check from scratch.
 */
export class HistoryChecker {
  #checked = 0;
  #last: Message | undefined;
  readonly #useIds: Set<string>;

  /**
   * @param settled A prefix of the histories to come that is known valid, with the ids of its tool
   *   calls (the checker adds to them): checking starts after it.
   */
  constructor(settled?: { readonly history: readonly Message[]; readonly prefix: SettledPrefix }) {
    this.#useIds = settled?.prefix.useIds ?? new Set<string>();
    if (settled && settled.prefix.length > 0) {
      this.#checked = settled.prefix.length;
      this.#last = settled.history[settled.prefix.length - 1];
    }
  }

  /** The ids of every tool call in the checked history (shared, not a copy). */
  get useIds(): Set<string> {
    return this.#useIds;
  }

  /**
   * How many leading messages of `history` are checked, valid and closed (no call left without
   * its result); 0 after a rewrite.
   */
  checkedLength(history: readonly Message[]): number {
    const last = this.#last;
    if (this.#checked === 0 || last === undefined || history[this.#checked - 1] !== last) return 0;
    const open = last.role === 'assistant' && last.content.some((b) => b.type === 'tool_use');
    return open ? 0 : this.#checked;
  }

  /** Every violation of the pairing invariant in `history` (as `validateHistory` reports them). */
  check(history: readonly Message[]): HistoryViolation[] {
    // A compaction can shorten the history by less than a turn adds: the length alone would then
    // skip the new messages (and miss their tool call ids, so a reused id would go unrenamed).
    if (history.length < this.#checked || history[this.#checked - 1] !== this.#last) this.#reset();
    const violations: HistoryViolation[] = [];
    validateFrom(history, this.#checked, this.#useIds, violations);
    if (violations.length > 0) {
      this.#reset();
      return violations;
    }
    this.#checked = history.length;
    this.#last = history.at(-1);
    return violations;
  }

  /**
   * Gives each tool call of a new assistant message an id not used before in the checked history
   * or earlier in the message. Some OpenAI-compatible servers number calls `call_0`, `call_1`, …
   * afresh every turn; a reused id would break the pairing of the next request. Returns the
   * message unchanged when every id is fresh, else a copy and the renames made.
   */
  withFreshToolUseIds(message: Message): { message: Message; renamed: [string, string][] } {
    const renamed: [string, string][] = [];
    const taken = new Set<string>();
    const content = message.content.map((block): ContentBlock => {
      if (block.type !== 'tool_use') return block;
      if (!this.#useIds.has(block.id) && !taken.has(block.id)) {
        taken.add(block.id);
        return block;
      }
      let suffix = 2;
      while (this.#useIds.has(`${block.id}_${suffix}`) || taken.has(`${block.id}_${suffix}`))
        suffix++;
      const id = `${block.id}_${suffix}`;
      taken.add(id);
      renamed.push([block.id, id]);
      return { ...block, id };
    });
    return renamed.length === 0
      ? { message, renamed }
      : { message: { ...message, content }, renamed };
  }

  #reset(): void {
    this.#checked = 0;
    this.#last = undefined;
    this.#useIds.clear();
  }
}
