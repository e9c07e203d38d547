import { validateHistory } from '../messages/history.js';
import {
  type ContentBlock,
  type IdSource,
  type Message,
  newMessageId,
} from '../messages/message.js';
import { trimMessage } from '../messages/trim.js';
import type { Usage } from '../messages/usage.js';
import type { Clock } from '../ports/clock.js';
import type { ToolSpec } from '../ports/provider.js';
import type { Summarizer } from '../ports/summarizer.js';
import type { PricingTable } from '../pricing/prices.js';
import type { ContextMeter } from './context-meter.js';
import { planCut, requestOf, trimAll } from './cut.js';
import { compactionEvent, type EventBase } from './event.js';
import { dropNote, summaryMessage } from './messages.js';
import type { ResolvedCompaction } from './options.js';
import type { CompactionEvent, CompactionRecord } from './record.js';
import { callSummarizer } from './summary-call.js';

/**
 * Trimming alone is accepted only when it gets this share of the threshold below it (a tenth of
 * the window at the default threshold 0.8): a trim that leaves the context just under the
 * threshold would trim again a few turns later, rewriting the history (and breaking the prompt
 * cache) each time; a summary resets it further.
 */
const TRIM_HEADROOM_SHARE = 0.125;
/** Tool results are cut to this many tokens when a failed summary falls back to trimming. */
const HARD_TRIM_TOKENS = 64;

/** What a compaction needs to know about the request it runs before. */
export interface CompactionContext {
  readonly runId: string;
  readonly turn: number;
  readonly model: string;
  readonly system?: string;
  readonly tools: readonly ToolSpec[];
  /**
   * The run's signal: when it aborts, a summary call still running is abandoned (even one that
   * ignores the signal) and the compaction leaves the history as it was.
   */
  readonly signal?: AbortSignal;
}

/** What `Compactor.compact` did: a new history when it changed one, and its records. */
export interface CompactionOutcome {
  /** The compacted history, when the history changed. */
  readonly history?: Message[];
  /** One event per record, in order (a rejected summary, then the fallback that replaced it). */
  readonly events: CompactionEvent[];
}

/** The collaborators of a `Compactor`. */
export interface CompactorDeps {
  readonly meter: ContextMeter;
  readonly summarizer: Summarizer;
  readonly instructions: string;
  readonly pricing: PricingTable;
  readonly clock: Clock;
  /** Ids of summary messages and records (default: `newMessageId`). */
  readonly newId?: IdSource;
}

/**
 * Keeps a conversation inside its context window. Before each model call, when the context is
 * over the threshold: stage 1 trims bulky tool results of the old segment (identifiers kept);
 * if that is not enough, stage 2 replaces the old segment with a summary and keeps a recent tail
 * verbatim. A summary that fails, is empty or is not smaller than its source is recorded as
 * `skipped` (with its cost) and the compaction degrades to harder trimming, then to dropping the
 * old segment behind a note that keeps its identifiers. A summary call cut short by the run's
 * signal is no failure: nothing changes (recorded as `skipped`). The cut never separates a tool
 * call from its result. When the cut folds the user's latest request (a long run of tool calls
 * since the prompt), the summary or drop note carries that request verbatim after its own text
 * (within the budget `planCut` sets; a bigger one is summarised), so the thread is never lost to
 * a summariser that paraphrases it. Old segments with under 5% of the window to compact (the
 * carried request does not count) are never compacted, and that case is recorded once, not on
 * every turn.
 */
export class Compactor {
  readonly #settings: ResolvedCompaction;
  readonly #deps: CompactorDeps;
  readonly #newId: IdSource;
  #skipNoted = false;
  #overNoted = false;

  constructor(settings: ResolvedCompaction, deps: CompactorDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.#newId = deps.newId ?? newMessageId;
  }

  /** The settings in force. */
  get settings(): ResolvedCompaction {
    return this.#settings;
  }

  /**
   * Whether `compact` would act: the context is over the threshold, and it is not the case, already
   * recorded, of an old segment too small to compact.
   */
  due(history: readonly Message[], context: CompactionContext): boolean {
    const { meter } = this.#deps;
    const size = meter.measure(requestOf(history, context)).tokens;
    if (size < this.#settings.thresholdTokens) {
      this.#skipNoted = false;
      this.#overNoted = false;
      return false;
    }
    if (size > this.#settings.contextWindow) {
      if (!this.#overNoted) return true;
      if (history.some((message) => trimMessage(message, HARD_TRIM_TOKENS) !== undefined))
        return true;
    }
    if (!this.#skipNoted) return true;
    return planCut(history, this.#settings, meter).compactableTokens >= this.#settings.minOldTokens;
  }

  /**
   * Compacts `history` if the request it would make is over the threshold. When the request is
   * still over the window afterwards (the newest turn alone is too big, say a huge file read), the
   * tool output of the whole history, the newest included, is trimmed too: sending it unchanged is
   * a certain provider error. What no trim can fix (a huge user message) is recorded once.
   */
  async compact(
    history: readonly Message[],
    context: CompactionContext,
  ): Promise<CompactionOutcome> {
    const { meter, clock } = this.#deps;
    const settings = this.#settings;
    const size = meter.measure(requestOf(history, context)).tokens;
    if (size < settings.thresholdTokens) {
      this.#skipNoted = false;
      this.#overNoted = false;
      return { events: [] };
    }
    const base: EventBase = {
      context,
      started: clock.now(),
      before: size,
      thresholdTokens: settings.thresholdTokens,
      clock,
      newId: this.#newId,
    };
    const outcome = await this.#stages(history, context, base);
    if (outcome.cancelled) return { events: outcome.events };
    return this.#fitWindow(history, outcome, context, base);
  }

  /** Trim, summary and their fallbacks, on the old segment. */
  async #stages(
    history: readonly Message[],
    context: CompactionContext,
    base: EventBase,
  ): Promise<CompactionOutcome & { readonly cancelled?: boolean }> {
    const { meter } = this.#deps;
    const settings = this.#settings;
    const size = base.before;
    const { old, tail, oldTokens, request, compactableTokens } = planCut(history, settings, meter);

    if (compactableTokens < settings.minOldTokens) {
      if (this.#skipNoted) return { events: [] };
      this.#skipNoted = true;
      const tailTokens = meter.estimateMessages(tail);
      const kept = request
        ? `, ${oldTokens - compactableTokens} of them the request kept verbatim,`
        : '';
      const reason =
        `context ${size} tokens is over the threshold ${settings.thresholdTokens}, but the old ` +
        `segment (${oldTokens} tokens${kept}) is under ${settings.minOldTokens} (5% of the window): ` +
        `the newest messages alone hold ${tailTokens} tokens, so compaction cannot help; not retried until the history grows`;
      return { events: [compactionEvent(base, 'skipped', reason, { after: size })] };
    }
    this.#skipNoted = false;

    // Stage 1: trim bulky tool results of the old segment.
    const trimmed = trimAll(old, settings.trimToolResultTokens);
    const trimmedHistory = [...trimmed.messages, ...tail];
    const afterTrim = meter.estimate(requestOf(trimmedHistory, context));
    const reasonOver = `context ${size} tokens reached the threshold ${settings.thresholdTokens}`;
    const headroom = Math.floor(settings.thresholdTokens * TRIM_HEADROOM_SHARE);
    if (trimmed.changed.length > 0 && afterTrim < settings.thresholdTokens - headroom) {
      return this.#done(trimmedHistory, [
        compactionEvent(
          base,
          'trim',
          `${reasonOver}; trimmed ${trimmed.changed.length} tool results`,
          {
            after: afterTrim,
            trimmed: trimmed.changed,
            originals: old,
          },
        ),
      ]);
    }

    // Stage 2: summarise the (trimmed) old segment.
    const events: CompactionEvent[] = [];
    const attempt = await this.#summarize(trimmed.messages, context, request);
    if (attempt.cancelled) {
      // A cancelled call is no failed summary: rewriting the history now would be lost work
      // the user never asked for. The call may still have been paid for.
      return {
        cancelled: true,
        events: [
          compactionEvent(
            base,
            'skipped',
            `${reasonOver}; the run was cancelled during the summary call: history left as it was`,
            { after: size, usage: attempt.usage, costUsd: attempt.costUsd },
          ),
        ],
      };
    }
    const sourceTokens = meter.estimateMessages(trimmed.messages);
    if (attempt.message) {
      const summaryTokens = meter.estimateMessages([attempt.message]);
      if (summaryTokens < sourceTokens) {
        const compacted = [attempt.message, ...tail];
        return this.#done(compacted, [
          compactionEvent(
            base,
            'summary',
            `${reasonOver}; summarised ${old.length} messages${attempt.omitted ? `; ${attempt.omitted} identifiers did not fit the summary` : ''}`,
            {
              after: meter.estimate(requestOf(compacted, context)),
              folded: old,
              originals: old,
              summaryId: attempt.message.id,
              usage: attempt.usage,
              costUsd: attempt.costUsd,
            },
          ),
        ]);
      }
      attempt.failure = `summary (${summaryTokens} tokens) not smaller than its source (${sourceTokens} tokens)`;
    }
    events.push(
      compactionEvent(base, 'skipped', `${reasonOver}; summary discarded: ${attempt.failure}`, {
        after: size,
        usage: attempt.usage,
        costUsd: attempt.costUsd,
      }),
    );

    // Fallback 1: trim every old tool result hard.
    const hard = trimAll(old, HARD_TRIM_TOKENS);
    const hardHistory = [...hard.messages, ...tail];
    const afterHard = meter.estimate(requestOf(hardHistory, context));
    if (hard.changed.length > 0 && afterHard < settings.thresholdTokens) {
      events.push(
        compactionEvent(
          base,
          'trim',
          `summary failed (${attempt.failure}); trimmed ${hard.changed.length} tool results hard instead`,
          {
            after: afterHard,
            trimmed: hard.changed,
            originals: old,
          },
        ),
      );
      return this.#done(hardHistory, events);
    }

    // Fallback 2: drop the old segment behind a note that keeps its identifiers.
    const { message: note, lost } = dropNote(old, settings.contextWindow, request, this.#newId);
    const dropped = [note, ...tail];
    events.push(
      compactionEvent(
        base,
        'drop',
        `summary failed (${attempt.failure}); dropped ${old.length} messages${lost > 0 ? `; ${lost} identifiers did not fit the note` : ''}`,
        {
          after: meter.estimate(requestOf(dropped, context)),
          folded: old,
          originals: old,
          summaryId: note.id,
        },
      ),
    );
    return this.#done(dropped, events);
  }

  #fitWindow(
    history: readonly Message[],
    outcome: CompactionOutcome,
    context: CompactionContext,
    base: EventBase,
  ): CompactionOutcome {
    const { meter } = this.#deps;
    const window = this.#settings.contextWindow;
    const current = outcome.history ?? history;
    // A changed history's size is its last record's (each stage measured what it produced).
    const tokens = outcome.history
      ? (outcome.events.at(-1)?.record.tokensAfter ?? meter.estimate(requestOf(current, context)))
      : base.before;
    if (tokens <= window) {
      this.#overNoted = false;
      return outcome;
    }
    // Nothing changed so far: the only record is the note that the old segment is too small,
    // which a trim of the newest output below makes wrong, so it goes when that trim happens.
    let events = [...outcome.events];
    let fitted: readonly Message[] = current;
    let after = tokens;
    let trimmedIds: string[] = [];
    for (const keep of [this.#settings.trimToolResultTokens, HARD_TRIM_TOKENS]) {
      const trimmed = trimAll(current, keep);
      if (trimmed.changed.length === 0) continue;
      fitted = trimmed.messages;
      after = meter.estimate(requestOf(fitted, context));
      trimmedIds = trimmed.changed;
      if (after <= window) break;
    }
    if (fitted !== current) {
      if (outcome.history === undefined) {
        // The note goes, so it is not 'recorded': should the trimmed history still sit over the
        // threshold, the next step says once that compaction cannot help.
        events = [];
        this.#skipNoted = false;
      }
      events.push(
        compactionEvent(
          { ...base, before: tokens },
          'trim',
          `context ${tokens} tokens is over the window ${window} tokens even with the old segment compacted: trimmed ${trimmedIds.length} tool results, the newest included`,
          { after, trimmed: trimmedIds, originals: current },
        ),
      );
    }
    if (after > window && !this.#overNoted) {
      this.#overNoted = true;
      const reason =
        `context ${after} tokens is over the window ${window} tokens and no tool output is left to trim: ` +
        'the newest messages alone do not fit, so the provider will probably refuse the request';
      const last = events.at(-1);
      if (fitted === current && last?.record.stage === 'skipped' && outcome.history === undefined) {
        events[events.length - 1] = {
          ...last,
          record: { ...last.record, reason: `${last.record.reason}; ${reason}` },
        };
      } else {
        events.push(compactionEvent({ ...base, before: after }, 'skipped', reason, { after }));
      }
    } else if (after <= window) {
      this.#overNoted = false;
    }
    if (fitted === current) return { ...outcome, events };
    return this.#done([...fitted], events);
  }

  #done(history: Message[], events: CompactionEvent[]): CompactionOutcome {
    const violations = validateHistory(history);
    if (violations.length > 0) {
      // Never reached by construction (cuts fall on turn boundaries); refuse rather than corrupt.
      const last = events.at(-1) as CompactionEvent;
      const record: CompactionRecord = {
        ...last.record,
        stage: 'skipped',
        reason: `compaction refused: it would break the history (${violations[0]?.detail})`,
        foldedMessageIds: [],
        trimmedMessageIds: [],
        summaryMessageId: undefined,
        tokensAfter: last.record.tokensBefore,
      };
      return { events: [...events.slice(0, -1), { type: 'compaction', record, originals: [] }] };
    }
    return { history, events };
  }

  async #summarize(
    messages: readonly Message[],
    context: CompactionContext,
    request: readonly ContentBlock[] | undefined,
  ): Promise<{
    message?: Message;
    usage: Usage;
    costUsd: number;
    failure: string;
    omitted?: number;
    cancelled?: boolean;
  }> {
    const { summarizer, instructions, pricing } = this.#deps;
    const call = await callSummarizer(
      summarizer,
      { messages, instructions, signal: context.signal },
      context.model,
      pricing,
    );
    const { usage, costUsd, failure, cancelled } = call;
    if (call.text === undefined) return { usage, costUsd, failure, cancelled };
    const window = this.#settings.contextWindow;
    const summary = summaryMessage(call.text, messages, window, request, this.#newId);
    const { message, omitted } = summary;
    return { message, usage, costUsd, failure: '', omitted };
  }
}
