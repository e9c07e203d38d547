import {
  type AgentEvent,
  type AskedQuestion,
  ConfigError,
  HarnessError,
  type IdSource,
  type Interrupt,
  type Message,
  messageText,
  newMessageId,
  type ResolvedLoopSettings,
  type RunResult,
  type RunStatus,
  runLoop,
  SessionConflictError,
  type StepRunner,
  stepExecutor,
} from '@mh/core';
import type { ResolvedOutput } from '@mh/core/internal';
import type { AgentConversation } from './agent-conversation.js';
import {
  type PlacedDecision,
  pendingOfHeld,
  stillInterrupted,
  type TurnPlace,
  tokenFor,
} from './agent-interrupts.js';
import { failedBeforeStart } from './agent-options.js';
import { recoverTurn, takeMintedPrompt } from './agent-recovery.js';
import { withCancelMark } from './cancel-mark.js';
import type { SessionBinding } from './session-binding.js';

/** One run of an agent, its options checked and resolved (see `Agent.stream`). */
export interface AgentRun {
  /** The prompt; undefined resumes (answers the last message if it awaits an answer). */
  readonly message: Message | undefined;
  /** The loop's settings with this run's limits. */
  readonly settings: ResolvedLoopSettings;
  /** Whether a tool may run again when a crash left it started (see `planRecovery`). */
  readonly mayRepeat: (toolName: string) => boolean;
  /** Cancels the run. */
  readonly signal: AbortSignal | undefined;
  /** The typed answer the run asks for, resolved before anything was kept (absent: free text). */
  readonly output?: ResolvedOutput;
  /** A person's decisions on the calls a held turn waits on (`resume({ decisions })`). */
  readonly decisions: ReadonlyMap<string, PlacedDecision>;
  /** The approval key: interrupts are signed with it and decisions checked against it. */
  readonly key: Buffer | undefined;
  /** The durable engine's step runner (`AgentOptions.steps`), when the run is durable. */
  readonly steps: StepRunner | undefined;
}

/**
 * Runs one prompt (or resumes) on `conversation` and yields every event; the last is `run-end`.
 * Before the prompt joins the history: a reset under way, the session's branch, and the turn a
 * crash interrupted. The prompt is committed before the model sees it, the rest once the run
 * settles; a store failure before the run started is a `run-end` with an error, never a throw.
 * However the run ends, even when the caller stops iterating, a valid history is left committed.
 */
export async function* runAgent(
  conversation: AgentConversation,
  run: AgentRun,
): AsyncGenerator<AgentEvent, void, void> {
  const { message } = run;
  const session = conversation.session;
  let settled = false;
  let failed = false;
  /** Whether the run got as far as the loop (its prompt is kept), and how the loop settled. */
  let loopStarted = false;
  let settledStatus: RunStatus | undefined;
  try {
    // Calls a new prompt answered as not run join the history with it, never alone: a run
    // stopped (abandoned, killed) before its prompt is kept leaves them waiting.
    let movedOn: readonly Message[] = [];
    let refused: unknown;
    // A prompt is first committed without reading the journal, refusing a pending turn; when the
    // store refuses it, the journal is read and the turn finished, then the prompt committed.
    for (let readJournal = false; ; readJournal = true) {
      const opened = yield* open(conversation, run, readJournal);
      if (opened !== true && opened !== UNREAD) {
        if (opened === false) return;
        if ('movedOn' in opened) movedOn = opened.movedOn;
        else if ('interrupted' in opened) {
          settled = true;
          yield { type: 'run-end', result: opened.interrupted };
          return;
        } else {
          settled = true;
          conversation.invalidate();
          yield { type: 'run-end', result: failedBeforeStart(opened.error, conversation.history) };
          return;
        }
      }
      if (movedOn.length > 0) conversation.held = undefined;
      if (message) conversation.extend([...movedOn, message]);
      else if (conversation.history.at(-1)?.role !== 'user') return;
      // The prompt is durable before the model sees it: a crash now resumes by answering it.
      const pendingTurn = opened === UNREAD ? 'refuse' : 'clear';
      refused = await session?.commitThrough(conversation.history, {}, pendingTurn).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (opened !== UNREAD || !refusedOverPendingTurn(refused)) break;
      conversation.history = conversation.history.slice(0, -1);
    }
    if (refused !== undefined) {
      settled = true;
      conversation.invalidate(); // another writer moved the session
      if (message) conversation.history = conversation.history.slice(0, -1 - movedOn.length);
      yield { type: 'run-end', result: failedBeforeStart(refused, conversation.history) };
      return;
    }
    loopStarted = true;
    const loop = runLoop({
      resolved: conversation.fenced(run.settings),
      // Appended to in place and given back through onSettled (see `AgentConversation.extend`).
      history: conversation.lend(),
      signal: run.signal,
      output: run.output,
      hooks: session?.hooks(),
      steps: run.steps,
      // However the run ends (even if the caller stops iterating), keep its valid history.
      onSettled: (history, status) => {
        conversation.settled(history);
        settledStatus = status;
      },
    });
    for await (const event of loop) {
      if (event.type !== 'run-end') {
        yield event;
        continue;
      }
      let result = event.result;
      if (result.status === 'cancelled') {
        const marked = withCancelMark(conversation.history, result, newIdOf(run));
        conversation.history = marked.history;
        result = marked.result;
      }
      settled = true;
      if (session) result = await commitRest(conversation, session, result);
      if (result.status === 'interrupted' && result.pendingTurn) {
        // Without a session the agent holds the turn; with one, the store's journal does.
        if (!session) conversation.held = result.pendingTurn;
        result = signed(result, run.key, placeOf(session, result.pendingTurn.assistant.id));
      }
      yield { type: 'run-end', result };
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    if (!settled) {
      // A consumer that stopped iterating early cancelled the run: record the cancel.
      const abandoned = loopStarted && !failed && settledStatus === 'cancelled';
      if (abandoned)
        conversation.history = withCancelMark(
          conversation.history,
          undefined,
          newIdOf(run),
        ).history;
      // Either way, leave a committed, valid history behind.
      await session
        ?.commitThrough(conversation.history, abandoned ? { extra: { status: 'cancelled' } } : {})
        .catch(() => conversation.invalidate());
    }
  }
}

/** `open` went on without reading the journal: the prompt's commit must refuse a pending turn. */
const UNREAD: unique symbol = Symbol('journal not read');

/** The store refused a `pendingTurn: 'refuse'` commit over a turn journaled on the unmoved head. */
const refusedOverPendingTurn = (error: unknown): boolean =>
  SessionConflictError.isInstance(error) && error.expectedHead === error.actualHead;

/**
 * Everything before the prompt joins the history: a reset under way, the session's history,
 * and the turn a crash interrupted. Resolves to true to go on, false when there is nothing to
 * resume, or the store's failure. A prompt whose id the conversation already holds is refused.
 * Unless `readJournal`, a prompt with no decisions goes on without reading the session's journal
 * (`UNREAD`): its commit then refuses a pending turn, which costs a read of the store per run.
 */
async function* open(
  conversation: AgentConversation,
  run: AgentRun,
  readJournal: boolean,
): AsyncGenerator<
  AgentEvent,
  boolean | typeof UNREAD | { readonly error: unknown } | Recovered,
  void
> {
  const { message } = run;
  const session = conversation.session;
  try {
    await conversation.load();
  } catch (error) {
    return { error };
  }
  // Also the messages compaction folded from the view: the store still holds them.
  // A prompt made from a string has a new id: only a caller's own message id can repeat one.
  if (
    message &&
    !takeMintedPrompt(message) &&
    inConversation(conversation.history, session, message.id)
  ) {
    throw new ConfigError('prompt.id', `message ${message.id} is already in the conversation`);
  }
  if (!session) return yield* recover(conversation, undefined, run);
  if (!session.exists && !message) {
    if (run.decisions.size > 0) throw nothingWaits(run);
    return false; // nothing was ever run: nothing to resume
  }
  try {
    await session.ensureCreated(
      message ? messageText(message).replace(/\s+/g, ' ').slice(0, 80) : undefined,
    );
    if (!readJournal && message && run.decisions.size === 0 && session.refusesPendingTurn) {
      return UNREAD;
    }
    return yield* recover(conversation, session, run);
  } catch (error) {
    // A decision that names no waiting call, or whose token fails, is the caller's mistake.
    if (ConfigError.isInstance(error) && error.field.startsWith('options.decisions')) throw error;
    return { error };
  }
}

/**
 * Whether a message with this id is in `history` or, with a session, stored on its branch. The
 * session holds every message up to the last one it stored, so only the messages after that one
 * are looked at: a run costs the same at turn 10 and turn 10,000.
 */
function inConversation(
  history: readonly Message[],
  session: SessionBinding | undefined,
  id: string,
): boolean {
  if (session?.holds(id)) return true;
  for (let index = history.length - 1; index >= 0; index--) {
    const known = (history[index] as Message).id;
    if (known === id) return true;
    if (session?.holds(known)) return false;
  }
  return false;
}

/** The mistake of decisions given when no call waits for one. */
function nothingWaits(run: AgentRun): ConfigError {
  const [first] = run.decisions.values();
  return new ConfigError(
    `${first?.field ?? 'options.decisions'}.callId`,
    'no call waits for a decision: nothing is pending (already decided, or never interrupted)',
  );
}

/** Where a pending turn sits, for its approval tokens. */
function placeOf(session: SessionBinding | undefined, assistantId: string): TurnPlace {
  return session
    ? { sessionId: session.id, branch: session.branch, head: session.head }
    : { sessionId: '', branch: '', head: assistantId };
}

/** `result` with each interrupt signed (with an approval key). */
function signed(result: RunResult, key: Buffer | undefined, place: TurnPlace): RunResult {
  if (key === undefined || !result.interrupts) return result;
  return {
    ...result,
    interrupts: result.interrupts.map((interrupt) => ({
      ...interrupt,
      token: tokenFor(key, place, interrupt, interrupt.input, askedOf(interrupt)),
    })),
  };
}

/** What a question interrupt's token covers: its question, schema and earlier answers. */
function askedOf(interrupt: Interrupt): AskedQuestion | undefined {
  if (interrupt.kind !== 'question') return undefined;
  const { question, schema, answers } = interrupt;
  return { question, ...(schema ? { schema } : {}), answers };
}

/**
 * What finishing a pending turn came to, besides going on (true): a resume that stays
 * interrupted, or the turn whose waiting calls a new prompt answered as not run, which the prompt
 * brings into the history with it (one checkpoint).
 */
type Recovered =
  | true
  | { readonly interrupted: RunResult }
  | { readonly movedOn: readonly Message[] };

/**
 * Finishes the turn a crash interrupted or an interrupt held back (see `recoverTurn`) and commits
 * it, unless a new prompt answered its waiting calls as not run (then the prompt's run keeps it).
 */
async function* recover(
  conversation: AgentConversation,
  session: SessionBinding | undefined,
  run: AgentRun,
): AsyncGenerator<AgentEvent, Recovered, void> {
  const pending = session
    ? await session.pendingTurn()
    : conversation.held && pendingOfHeld(conversation.held);
  if (!pending) {
    if (run.decisions.size > 0) throw nothingWaits(run);
    return true;
  }
  const place = placeOf(session, pending.assistant.id);
  const { executor } = conversation;
  const recovered = yield* recoverTurn(pending, {
    // A durable run takes the turn's calls as steps too (the loop's own are wrapped by the loop).
    executor: run.steps && executor ? stepExecutor(executor, run.steps) : executor,
    newId: newIdOf(run),
    mayRepeat: run.mayRepeat,
    refence: (messages, options) => conversation.refence(messages, options),
    signal: run.signal,
    hooks: session?.hooks(),
    journal: session && {
      claimAnswer: (callId, answers) => session.claimAnswer(callId, answers),
      settle: (callId, result) => session.settle(callId, result),
    },
    decisions: run.decisions,
    moveOn: run.message !== undefined,
    key: run.key,
    place,
  });
  if ('waiting' in recovered) {
    // Without a session the agent holds the turn as it now stands (a call may have asked again).
    if (!session) conversation.held = recovered.held;
    const result = stillInterrupted(conversation.history, recovered.waiting, recovered.held);
    return { interrupted: signed(result, run.key, place) };
  }
  // Calls answered "the user sent a new message instead" join the history with that message, in
  // one checkpoint (the prompt's commit): apart, a crash or an abandoned stream between them left
  // a history claiming a prompt it did not hold, and the next resume answered the old prompt.
  const movedOn = recovered.movedOn > 0;
  if (!movedOn) {
    conversation.held = undefined;
    conversation.history = [...conversation.history, ...recovered.turn];
    await session?.commitThrough(conversation.history, { extra: { recovered: true } });
  }
  yield {
    type: 'history-repair',
    repairs: [
      {
        kind: 'synthesized-result',
        messageId: recovered.assistantId,
        detail: `resumed a pending turn: ${recovered.ran} call(s) run, ${recovered.decided} decided by a person, ${recovered.interrupted} reported as interrupted`,
      },
    ],
  };
  return movedOn ? { movedOn: recovered.turn } : true;
}

/** Where the run's new message ids come from: the durable engine's steps, or `newMessageId`. */
function newIdOf(run: AgentRun): IdSource {
  const { steps } = run;
  return steps ? (prefix = 'msg') => steps.newId(prefix) : newMessageId;
}

/** Commits what the run left uncommitted (a cancelled turn); a failure makes the run an error. */
async function commitRest(
  conversation: AgentConversation,
  session: SessionBinding,
  result: RunResult,
): Promise<RunResult> {
  try {
    await session.commitThrough(conversation.history, {
      extra: { runId: result.runId, status: result.status },
    });
    return result;
  } catch (error) {
    conversation.invalidate(); // reload from the store next time: it is the source of truth
    return {
      ...result,
      status: 'error',
      error: error instanceof Error ? error : new HarnessError(String(error)),
    };
  }
}
