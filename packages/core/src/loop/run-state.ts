import type { CompactionRecord } from '../compaction/record.js';
import { HistoryChecker } from '../messages/history-checker.js';
import { type HistoryRepair, repairSuffix } from '../messages/history-repair.js';
import { type IdSource, type Message, newMessageId } from '../messages/message.js';
import { rememberSettled, type SettledPrefix } from '../messages/settled-histories.js';
import { assertMessages } from '../messages/shape.js';
import { addUsage, type Usage, ZERO_USAGE } from '../messages/usage.js';
import type { StopReason } from '../ports/provider.js';
import { isLent, lendHistory, markAppendOnly, prefixCopyOnRead } from '../support/append-only.js';
import type { RunProgress, Stop } from './guards.js';
import { RepeatedCallCounter } from './limits.js';
import type { RunResult, RunStatus } from './run-result.js';

/**
 * What one run has done so far: its history, usage and cost, turns, repairs and compactions, and
 * why it stopped. The loop and its turns change the run only through it, and it makes the
 * `RunResult`.
 */
export class RunState implements RunProgress {
  /**
   * Only appended to: a rewrite (compaction, repair) assigns a new array, so a request taken as a
   * snapshot of it (`requestSnapshot`) keeps what it was sent without copying the history per
   * turn, and the meter reads only the messages added since it last measured it.
   */
  history: Message[];
  /** The repairs of the given history (reported first, in their own event). */
  readonly initialRepairs: readonly HistoryRepair[];
  /** Every repair of the run, in order. */
  readonly repairs: HistoryRepair[];
  readonly compactions: CompactionRecord[] = [];
  /** Checks the history before each request, from where it last checked. */
  readonly checker: HistoryChecker;
  /** Counts calls by tool and arguments, for the repeated-call guard. */
  readonly repeats: RepeatedCallCounter = new RepeatedCallCounter();
  usage: Usage = ZERO_USAGE;
  costUsd = 0;
  turns = 0;
  /** The text of the model's last message. */
  lastText = '';
  stopReason: StopReason | undefined;
  /** Why the run stopped early; undefined while it runs and when it completed. */
  stop: Stop | undefined;
  /** The typed answer, once one was accepted. */
  output: unknown;
  /** Typed answers the model gave that were not accepted. */
  wrongOutputs = 0;
  /**
   * Ids of the messages this run added (its prompt first), to find them again after a compaction
   * (a trimmed message keeps its id; a summary counts only when it folded one of them).
   */
  readonly #added: Set<string>;
  /** The history is appended to in place: its length at the start is where this run's messages begin. */
  readonly #givenLength: number;
  /** How much of the given history an earlier run settled. */
  readonly #startedFrom: number;
  readonly #onSettled: ((history: readonly Message[], status: RunStatus) => void) | undefined;
  readonly #newId: IdSource;
  /**
   * The history was lent (`lendHistory`): the run appends to the owner's array, gives back
   * whichever array it ends with (lent in turn), and its result's messages are a copy.
   */
  readonly #lent: boolean;

  constructor(
    given: readonly Message[],
    settledPrefix: SettledPrefix | undefined,
    onSettled?: (history: readonly Message[], status: RunStatus) => void,
    newId: IdSource = newMessageId,
  ) {
    this.#newId = newId;
    this.#lent = isLent(given);
    // A prefix an earlier run settled is not checked or repaired again (settled-histories.ts).
    const from = settledPrefix?.length ?? 0;
    if (!settledPrefix) assertMessages(given);
    const initial = repairSuffix(given, from, settledPrefix?.useIds ?? new Set<string>(), {
      reason: 'interrupted',
      newId: () => newId(),
    });
    // Every change is reported. Without one, a lent history is the run's own array (the run
    // appends to it); any other is copied, so the caller's array is left as it was.
    let history: Message[];
    if (initial.repairs.length > 0) history = given.slice(0, from).concat(initial.tail);
    else history = this.#lent ? (given as Message[]) : given.slice();
    this.history = markAppendOnly(history);
    this.initialRepairs = initial.repairs;
    this.repairs = [...initial.repairs];
    this.#added = new Set(this.history.slice(-1).map((message) => message.id));
    this.#givenLength = this.history.length;
    this.#startedFrom = from;
    this.#onSettled = onSettled;
    this.checker = new HistoryChecker(
      settledPrefix ? { history, prefix: settledPrefix } : undefined,
    );
  }

  /** Adds what a model call (or a compaction) used and cost. */
  charge(usage: Usage, costUsd: number): void {
    this.usage = addUsage(this.usage, usage);
    this.costUsd += costUsd;
  }

  /** Appends a message this run added. */
  append(message: Message): void {
    this.history.push(message);
    this.#added.add(message.id);
  }

  /** Takes the last message (`assistant`, its turn held back by an interrupt) out of the history. */
  holdBack(assistant: Message): void {
    if (this.history.at(-1) !== assistant) return;
    this.history = markAppendOnly(this.history.slice(0, -1));
    this.#added.delete(assistant.id);
  }

  /** Takes the history a compaction rewrote, and its records. */
  compacted(history: readonly Message[] | undefined, records: readonly CompactionRecord[]): void {
    this.compactions.push(...records);
    if (!history) return;
    for (const record of records) {
      if (record.summaryMessageId && record.foldedMessageIds.some((id) => this.#added.has(id)))
        this.#added.add(record.summaryMessageId);
    }
    this.history = markAppendOnly(history.slice());
  }

  /** Answers calls left without a result, remembers the history as settled; returns the repairs. */
  settle(status: RunStatus): HistoryRepair[] {
    // Everything in the history was shape-checked on its way in: the input by repairHistory,
    // model messages by streamModelCall, tool results by runToolBatch.
    const reason = status === 'error' ? 'interrupted' : 'cancelled';
    // What the checker passed before the last request is valid and ends with no call left open.
    const checked = this.checker.checkedLength(this.history);
    // The checker's ids are those of its checked messages: after a rewrite (a compaction since
    // the last check) they are another history's, and everything is repaired afresh.
    const useIds = checked > 0 ? this.checker.useIds : new Set<string>();
    // Only what follows the checked prefix is looked at, and the history copied only if it changes.
    const repaired = repairSuffix(this.history, checked, useIds, {
      reason,
      newId: () => this.#newId(),
    });
    if (repaired.repairs.length > 0) {
      this.history = markAppendOnly([...this.history.slice(0, checked), ...repaired.tail]);
    }
    for (let index = checked; index < this.history.length; index++) {
      for (const block of (this.history[index] as Message).content)
        if (block.type === 'tool_use') useIds.add(block.id);
    }
    // A rewrite's array goes back to the owner of a lent history in its place, lent in turn.
    if (this.#lent) lendHistory(this.history);
    rememberSettled(this.history, useIds, this.#startedFrom);
    this.#onSettled?.(this.history, status);
    return repaired.repairs;
  }

  /** The result of the run as it stands. */
  result(runId: string, durationMs: number): RunResult {
    const stop = this.stop;
    const result: RunResult = {
      runId,
      status: stop?.status ?? 'completed',
      guard: stop?.status === 'guard' ? stop.guard : undefined,
      error: stop?.error,
      text: this.lastText,
      stopReason: this.stopReason,
      turns: this.turns,
      usage: this.usage,
      costUsd: this.costUsd,
      durationMs,
      messages: this.history,
      newMessages: this.#newMessages(),
      repairs: this.repairs,
      compactions: this.compactions,
      ...(this.output === undefined ? {} : { output: this.output }),
      ...(stop?.status === 'interrupted'
        ? { interrupts: stop.interrupts, pendingTurn: stop.held }
        : {}),
    };
    // A lent history goes on growing under its owner: the result holds a copy, taken when read.
    if (this.#lent) {
      const messages = prefixCopyOnRead(this.history);
      Object.defineProperty(result, 'messages', {
        ...messages,
        enumerable: true,
        configurable: true,
      });
    }
    return result;
  }

  /** The messages this run added, from the first of them on. */
  #newMessages(): Message[] {
    // Without a compaction the run's messages follow the history it was given (its prompt last).
    const from = this.compactions.length === 0 ? Math.max(0, this.#givenLength - 1) : 0;
    for (let index = from; index < this.history.length; index++) {
      if (this.#added.has((this.history[index] as Message).id)) return this.history.slice(index);
    }
    return [];
  }
}
