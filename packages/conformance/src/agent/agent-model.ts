import {
  type Message,
  messageText,
  type SessionStore,
  toolResultsOf,
  validateHistory,
} from '@mh/core';
import type { PlannedCall } from './scripted-model.js';

/** A prompt as the reference model holds it: its label and whether its answer was committed. */
export interface PromptRecord {
  readonly label: string;
  readonly answered: boolean;
}

/** A call that waits for a person's decision, as the model holds it. */
export interface WaitingCall {
  /** The prompt whose turn holds it. */
  readonly label: string;
  readonly callId: string;
  /** Its arguments, as the interrupt gave them. */
  readonly input: unknown;
  /** The interrupt's approval token (with an `approvalKey`), to pass back with the decision. */
  readonly token: string | undefined;
  /** The prompt's planned tool turns after the one that waits. */
  readonly after: readonly (readonly PlannedCall[])[];
}

/**
 * The reference: what each branch of the session must hold, as prompts in order, and which
 * branch is current; which calls wait for a person, on which branch, and how often each call
 * that needed approval must have run. Everything else (tool turns, cancel marks, compaction) may
 * vary; these may not.
 */
export class AgentModel {
  /** Each branch's prompts, in order. */
  readonly branches: Map<string, PromptRecord[]> = new Map([['main', []]]);
  /** The call each branch's pending turn waits on (its journal is per branch). */
  readonly waiting: Map<string, WaitingCall> = new Map();
  /** Calls decided, or answered as not run: a decision naming one again is refused. */
  readonly decided: string[] = [];
  /** Every approval token an interrupt gave (a replayed one is refused by any other call). */
  readonly tokens: string[] = [];
  /** How many times each call that needed approval ran: 1 once approved, else 0, ever. */
  readonly runs: Map<string, number> = new Map();
  /** The branch the session and its agent work on. */
  current = 'main';
  /** Whether the session exists in the store (its first prompt creates it). */
  exists = false;
  #nextLabel = 0;
  #nextBranch = 0;

  /** A fresh prompt label, `P0`, `P1`, …: unique within the sequence. */
  label(): string {
    return `P${this.#nextLabel++}`;
  }

  /** A fresh branch name for a rewind or fork. */
  branchName(): string {
    return `b${this.#nextBranch++}`;
  }

  /** The prompts of the current branch. */
  get prompts(): PromptRecord[] {
    return this.branches.get(this.current) as PromptRecord[];
  }

  /** The name `Agent.reset()` gives the next empty branch: the first free `reset-N`. */
  resetName(): string {
    let n = 1;
    while (this.branches.has(`reset-${n}`)) n++;
    return `reset-${n}`;
  }
}

/** The prompts a stored history holds, in order, and which of them have their one answer. */
export function promptsOf(messages: readonly Message[]): PromptRecord[] {
  const answers = new Map<string, number>();
  const labels: string[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === 'user' && toolResultsOf(message).length === 0) {
      const label = /^(P\d+)\b/.exec(text)?.[1];
      if (label) labels.push(label);
    } else if (message.role === 'assistant') {
      const label = /^answer to (P\d+)$/.exec(text)?.[1];
      if (label) answers.set(label, (answers.get(label) ?? 0) + 1);
    }
  }
  for (const [label, count] of answers) {
    if (count > 1) throw new ConformanceViolation(`prompt ${label} was answered ${count} times`);
  }
  return labels.map((label) => ({ label, answered: answers.has(label) }));
}

/** An invariant that does not hold. */
export class ConformanceViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceViolation';
  }
}

/** Throws a `ConformanceViolation` unless `condition` holds. */
export function expectThat(condition: boolean, what: () => string): asserts condition {
  if (!condition) throw new ConformanceViolation(what());
}

const show = (records: readonly PromptRecord[]): string =>
  JSON.stringify(records.map((record) => `${record.label}${record.answered ? '+' : '?'}`));

/** Roles never repeat as two assistant messages in a row (the first build's reset defect). */
function checkTurns(messages: readonly Message[], where: string): void {
  const violations = validateHistory(messages);
  expectThat(
    violations.length === 0,
    () => `${where}: history invalid: ${JSON.stringify(violations)}`,
  );
  messages.forEach((message, index) => {
    expectThat(
      index === 0 || message.role !== 'assistant' || messages[index - 1]?.role !== 'assistant',
      () => `${where}: two assistant messages in a row at ${index}`,
    );
    // A call answered "the user sent a new message instead" comes with that message: the history
    // never claims a prompt it does not hold (nor goes on answering the old one instead).
    const movedOn = toolResultsOf(message).some((result) =>
      result.content.some((block) => block.type === 'text' && block.text.includes(MOVED_ON_TEXT)),
    );
    const next = messages[index + 1];
    expectThat(
      !movedOn ||
        (next?.role === 'user' &&
          toolResultsOf(next).length === 0 &&
          /\bP\d+ please\b/.test(messageText(next))),
      () =>
        `${where}: message ${index} answers a call as "${MOVED_ON_TEXT}" but is followed by ${
          next ? `${next.role}: ${messageText(next).slice(0, 60)}` : 'nothing'
        }`,
    );
  });
}

/** The words of the result a call waiting for a decision gets when a new prompt comes instead. */
const MOVED_ON_TEXT = 'the user sent a new message instead of deciding';

/**
 * The invariants after every command: each branch stores exactly the model's prompts, once and in
 * order, each answered exactly as often as the model says (no committed turn lost or duplicated);
 * every stored history and the agent's own view validate; the session's current branch is the
 * model's; no non-idempotent call ran twice.
 */
export async function checkAgentInvariants(
  model: AgentModel,
  real: {
    readonly store: SessionStore;
    readonly sessionId: string;
    readonly agentHistory: readonly Message[];
    readonly agentBranch: string | undefined;
    readonly sent: readonly string[];
    readonly serializers: readonly Serializer[];
  },
): Promise<void> {
  for (const [callId, runs] of model.runs) {
    const ran = real.sent.filter((id) => id === callId).length;
    expectThat(
      ran === runs,
      () => `approved_send ${callId} ran ${ran} time(s), the model says ${runs}`,
    );
  }
  checkTurns(real.agentHistory, "the agent's history");
  for (const serializer of real.serializers) {
    try {
      await serializer.build(real.agentHistory);
    } catch (error) {
      throw new ConformanceViolation(
        `the ${serializer.name} request cannot be built from the agent's history: ${String(error)}`,
      );
    }
  }
  const duplicates = real.sent.filter((id, index) => real.sent.indexOf(id) !== index);
  expectThat(duplicates.length === 0, () => `non-idempotent call(s) ran twice: ${duplicates}`);
  const info = await real.store.getSession(real.sessionId);
  expectThat((info !== undefined) === model.exists, () => `session exists: ${info !== undefined}`);
  if (!info) return;
  expectThat(
    info.branch === model.current,
    () => `current branch ${info.branch}, model ${model.current}`,
  );
  expectThat(
    real.agentBranch === model.current,
    () => `the agent works on ${real.agentBranch}, model ${model.current}`,
  );
  for (const [branch, expected] of model.branches) {
    const state = await real.store.load(real.sessionId, branch);
    checkTurns(state.messages, `branch ${branch}`);
    const stored = promptsOf(state.messages);
    expectThat(
      show(stored) === show(expected),
      () => `branch ${branch} stores ${show(stored)}, the model says ${show(expected)}`,
    );
    const waits = model.waiting.get(branch);
    if (!waits) continue;
    const pending = await real.store.pendingTurn(real.sessionId, branch);
    const call = pending?.calls.find((entry) => entry.call.id === waits.callId);
    expectThat(
      call !== undefined && !call.started,
      () =>
        `branch ${branch} should wait on ${waits.callId}; its pending turn: ${JSON.stringify(pending?.calls)}`,
    );
  }
}

/** A vendor request builder the suite runs on the agent's history after every command. */
export interface Serializer {
  /** The vendor or API, for messages. */
  readonly name: string;
  /** Builds (and may validate) the request body; throws (or rejects) when it cannot be sent. */
  build(history: readonly Message[]): unknown;
}
