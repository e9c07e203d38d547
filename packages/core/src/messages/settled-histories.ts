import { isLent } from '../support/append-only.js';
import type { Message } from './message.js';

// A conversation's next run is the same messages plus a prompt. Checking and repairing the whole
// history at the start and end of every run made a run's cost grow with the conversation (at
// 8,000 messages those passes were most of a 20 ms step). The loop remembers each history it
// settled (valid: every call answered, every block well formed), by its last message, with the
// ids of its tool calls; the next run that starts with exactly those message objects checks only
// what follows them. Messages are treated as immutable: a message object changed in place after
// a run settled it is not checked again.
//
// A history lent to the loop (`lendHistory`) is only appended to by its owner, who shows it to
// no one: its settled prefix is remembered by the array itself, and found without comparing a
// message (a conversation's run then costs what it adds, at 100 messages or 100,000).

/**
 * A history the loop settled, and the ids of its tool calls. Held for as long as its last message
 * lives; a conversation keeps one (each run's replaces the one before).
 */
interface Settled {
  readonly messages: readonly Message[];
  readonly length: number;
  readonly useIds: Set<string>;
}

/** Keyed by a settled history's last message; held weakly, so a dropped conversation goes. */
const settled = new WeakMap<Message, Settled>();

/** The settled length of each lent history (a conversation's, appended to in place). */
const settledLent = new WeakMap<readonly Message[], Omit<Settled, 'messages'>>();

/** How far back from the end a settled history's last message is looked for (new prompts). */
const LOOK_BACK = 8;

/** A settled prefix of a history: its length and its tool call ids. */
export interface SettledPrefix {
  readonly length: number;
  readonly useIds: Set<string>;
}

function find(history: readonly Message[]): { key: Message; prefix: SettledPrefix } | undefined {
  const lowest = Math.max(0, history.length - LOOK_BACK);
  for (let end = history.length; end > lowest; end--) {
    const key = history[end - 1] as Message;
    const entry = settled.get(key);
    if (entry === undefined || entry.length !== end) continue;
    const messages = entry.messages;
    if (messages.length < end) continue;
    let same = true;
    for (let index = 0; index < end && same; index++) same = messages[index] === history[index];
    if (same) return { key, prefix: { length: end, useIds: entry.useIds } };
  }
  return undefined;
}

/**
 * The settled prefix of `history`, taken: its tool call ids now belong to the caller, who may add
 * to them, and no other run can take the same prefix (a conversation that forks checks again).
 */
export function takeSettledPrefix(history: readonly Message[]): SettledPrefix | undefined {
  const lent = settledLent.get(history);
  if (lent !== undefined) {
    settledLent.delete(history);
    // Appended to only, so its first `length` messages are still the ones settled.
    if (lent.length <= history.length) return { length: lent.length, useIds: lent.useIds };
  }
  const found = find(history);
  if (found) settled.delete(found.key);
  return found?.prefix;
}

/**
 * Remembers `history` as settled, with the ids of all its tool calls (given to the cache). Entries
 * keyed by its earlier messages from `from` on (the run's own, and what it looked back over) go:
 * a conversation keeps one entry, not one per run.
 */
export function rememberSettled(
  history: readonly Message[],
  useIds: Set<string>,
  from: number,
): void {
  const last = history.at(-1);
  if (last === undefined) return;
  if (isLent(history)) {
    settledLent.set(history, { length: history.length, useIds });
    return;
  }
  for (let index = Math.max(0, from - LOOK_BACK); index < history.length - 1; index++) {
    settled.delete(history[index] as Message);
  }
  // A copy: the run returns `history` itself, and a caller who changed an element of it in place
  // and passed it back must not find it matching (the messages are compared by identity).
  settled.set(last, { messages: history.slice(), length: history.length, useIds });
}
