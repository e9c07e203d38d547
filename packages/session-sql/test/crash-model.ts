import { readFileSync, writeFileSync } from 'node:fs';
import type { Message, PendingTurn, SessionState, ToolResultBlock } from '@mh/core';

/** One line of the crash worker's log (and of the parent's verdicts on in-flight writes). */
type LogLine =
  | { phase: 'intent'; op: 'journalTurn'; turn: number }
  | { phase: 'intent'; op: 'start'; turn: number; call: string }
  | { phase: 'intent'; op: 'end'; turn: number; call: string; result: ToolResultBlock }
  | { phase: 'intent'; op: 'commit'; turn: number; messages: Message[] }
  | { phase: 'done' | 'landed' | 'lost' };

type Intent = Extract<LogLine, { phase: 'intent' }>;

/** What the store should show: the committed history and the journal of the open turn. */
export interface Observation {
  readonly messages: readonly Message[];
  readonly pending:
    | {
        readonly assistantId: string;
        readonly calls: readonly { id: string; started: boolean; result?: ToolResultBlock }[];
      }
    | undefined;
}

interface Model {
  messages: Message[];
  pending:
    | { turn: number; calls: Map<string, { started: boolean; result?: ToolResultBlock }> }
    | undefined;
}

function apply(model: Model, intent: Intent): Model {
  const calls = new Map(model.pending?.calls);
  switch (intent.op) {
    case 'journalTurn':
      return {
        messages: model.messages,
        pending: {
          turn: intent.turn,
          calls: new Map([0, 1].map((i) => [`call-${intent.turn}-${i}`, { started: false }])),
        },
      };
    case 'start':
      calls.set(intent.call, { started: true });
      return { messages: model.messages, pending: model.pending && { ...model.pending, calls } };
    case 'end':
      calls.set(intent.call, { started: true, result: intent.result });
      return { messages: model.messages, pending: model.pending && { ...model.pending, calls } };
    case 'commit':
      return { messages: [...model.messages, ...intent.messages], pending: undefined };
  }
}

function observe(model: Model): Observation {
  return {
    messages: model.messages,
    pending: model.pending && {
      assistantId: `assistant-${model.pending.turn}`,
      calls: [...model.pending.calls].map(([id, call]) => ({ id, ...call })),
    },
  };
}

/**
 * Replays the log: every acknowledged write applied, and the write in flight at the kill (an
 * intent with no `done`) left open. Returns what the store may show — without and with that one
 * write — and the write itself.
 */
export function expectedStates(lines: readonly LogLine[]): {
  without: Observation;
  with: Observation | undefined;
  inFlight: Intent | undefined;
} {
  let model: Model = { messages: [], pending: undefined };
  let inFlight: Intent | undefined;
  for (const line of lines) {
    if (line.phase === 'intent') {
      if (inFlight) throw new Error('an unresolved write before a new one');
      inFlight = line;
    } else if (line.phase === 'done' || line.phase === 'landed') {
      if (inFlight) model = apply(model, inFlight);
      inFlight = undefined;
    } else {
      inFlight = undefined;
    }
  }
  return {
    without: observe(model),
    with: inFlight && observe(apply(model, inFlight)),
    inFlight,
  };
}

/** The store's state in the same shape. */
export function observed(state: SessionState, pending: PendingTurn | undefined): Observation {
  return {
    messages: state.messages,
    pending: pending && {
      assistantId: pending.assistant.id,
      calls: pending.calls.map(({ call, started, result }) => ({
        id: call.id,
        started,
        ...(result ? { result } : {}),
      })),
    },
  };
}

/**
 * Drops the line a killed worker was appending to the log at `path` when it died. A write to a
 * file is cut short when SIGKILL arrives between two of its pages, so the line ends without its
 * newline; its write had not started (an `intent` line) or had ended (a `done` line), and the log
 * reads as if the line was never written, which `expectedStates` allows for either way.
 */
export function dropCutLine(path: string): void {
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) writeFileSync(path, text.slice(0, end));
}

/** Parses the log file's lines. */
export function parseLog(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as LogLine);
}

export const writeOps = ['journalTurn', 'start', 'end', 'commit'] as const;

/**
 * Even kills are aimed: the worker kills itself right after the 1st, 2nd or 3rd SQL statement of
 * the next write of one kind (each kind in turn), so every kind of write is hit inside however
 * loaded the machine is. Odd kills (no argument) are left to the parent, which kills after a
 * random delay.
 */
export function aimedKill(kill: number): string[] {
  if (kill % 2 === 1) return [];
  const aimed = kill / 2;
  return [`${writeOps[aimed % writeOps.length]}:${1 + (Math.floor(aimed / writeOps.length) % 3)}`];
}
