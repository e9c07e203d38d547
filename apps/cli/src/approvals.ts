import type { Decision, Interrupt, QuestionInterrupt } from '@mh/sdk';
import { UsageError } from './usage-error.js';

/** The exit code of a run that ended with tool calls waiting for a person (approval or answer). */
export const APPROVAL_EXIT_CODE = 5;

/** How many characters of a call's arguments (compact JSON) a question shows. */
const SHOWN_ARGUMENTS = 60;

/** A waiting call as a person reads it: `write_file {"path":"notes.md",…}`. */
export function shownCall(interrupt: Interrupt): string {
  const json = JSON.stringify(interrupt.input) ?? 'null';
  const shown = json.length > SHOWN_ARGUMENTS ? `${json.slice(0, SHOWN_ARGUMENTS - 1)}…` : json;
  return `${interrupt.tool} ${shown}`;
}

/**
 * What mh prints when a run ends with calls waiting and nobody at a terminal to ask: each call
 * (id, tool, arguments, why) and the command lines that answer it. Without a session database
 * the turn ends with this process, so only a rerun with `--grant` helps.
 */
export function waitingNotice(
  interrupts: readonly Interrupt[],
  resume: string | undefined,
  options: { readonly durable?: boolean } = {},
): string {
  const notice = noticeOf(interrupts, resume);
  // A durable run's tools are on its workers: the answering mh needs no tool flags.
  return options.durable === true ? notice.replace(TOOL_FLAGS_HINT, '') : notice;
}

/** The part of a notice that asks for the same tool flags (a local resume builds the tools). */
const TOOL_FLAGS_HINT =
  /;\n {2}give the same tool flags, e\.g\. --mcp, so the tools are there|; give the same tool flags, e\.g\. --mcp, so the tools are there/;

function noticeOf(interrupts: readonly Interrupt[], resume: string | undefined): string {
  const questions = interrupts.filter((interrupt) => interrupt.kind === 'question');
  if (questions.length > 0) return questionNotice(interrupts, questions, resume);
  const lines = interrupts.map(
    (interrupt) => `  ${interrupt.callId}  ${shownCall(interrupt)}  (${interrupt.reason})`,
  );
  const first = interrupts[0]?.callId ?? 'CALL_ID';
  const permissions = [...new Set(interrupts.map((interrupt) => interrupt.permission))];
  const grants = permissions.flatMap((permission) =>
    permission === undefined || permission === 'read' ? [] : [`--grant ${permission}`],
  );
  const how =
    resume === undefined
      ? `  run again with ${grants.join(' ') || '--grant'} to allow such tools, or with --db PATH to answer later`
      : `  answer with: mh ${resume} --approve ${first}   (or --deny ${first}[=MESSAGE]; repeatable;\n  give the same tool flags, e.g. --mcp, so the tools are there)`;
  return `mh: ${interrupts.length} tool call(s) wait for approval:\n${lines.join('\n')}\n${how}\n`;
}

/**
 * The notice when some waiting calls asked a question (`ctx.interrupt`): each call, its question
 * (and the answer's schema), and the `--answer` (or `--approve`/`--deny`) lines that answer them.
 */
function questionNotice(
  interrupts: readonly Interrupt[],
  questions: readonly QuestionInterrupt[],
  resume: string | undefined,
): string {
  const lines = interrupts.map((interrupt) =>
    interrupt.kind === 'question'
      ? `  ${interrupt.callId}  ${shownCall(interrupt)}  asks: ${interrupt.question}${schemaHint(interrupt)}`
      : `  ${interrupt.callId}  ${shownCall(interrupt)}  (${interrupt.reason})`,
  );
  const first = questions[0]?.callId ?? 'CALL_ID';
  const how =
    resume === undefined
      ? '  run again with --db PATH to answer later: without a session the question ends with this process'
      : `  answer with: mh ${resume} --answer ${first}=TEXT   (or --answer-json ${first}=JSON; an approval\n  with --approve/--deny; give the same tool flags, e.g. --mcp, so the tools are there)`;
  return `mh: ${interrupts.length} tool call(s) wait for you:\n${lines.join('\n')}\n${how}\n`;
}

/** ` (answer: {"type":"integer"})` when the question gave a schema. */
function schemaHint(interrupt: QuestionInterrupt): string {
  return interrupt.schema ? ` (answer: ${JSON.stringify(interrupt.schema)})` : '';
}

/**
 * The answer a typed line gives to `interrupt`: the text itself, unless its schema asks for
 * something other than a string (a number, a boolean, an object…): then the line is read as JSON
 * when it parses (and left as text otherwise, for the schema check to name).
 */
export function answerOfLine(interrupt: QuestionInterrupt, line: string): unknown {
  const type = interrupt.schema?.type;
  if (type === undefined || type === 'string') return line;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return line;
  }
}

/** Asks a question at the terminal and resolves with the typed line. */
export type Ask = (question: string) => Promise<string>;

/**
 * Asks about each waiting call, `allow write_file {…}? [y/N/a(lways)]`: `y` approves it, `a`
 * approves it and every later call of that tool in this mh (`always` remembers it), anything
 * else denies it. A tool already in `always` is approved without asking.
 */
export async function askDecisions(
  interrupts: readonly Interrupt[],
  ask: Ask,
  always: Set<string>,
  note: (text: string) => void,
): Promise<Decision[]> {
  const decisions: Decision[] = [];
  for (const interrupt of interrupts) {
    const { callId, tool } = interrupt;
    if (interrupt.kind === 'question') {
      const line = await ask(
        `${shownCall(interrupt)} asks: ${interrupt.question}${schemaHint(interrupt)}\n> `,
      );
      decisions.push({ callId, answer: answerOfLine(interrupt, line.trim()) });
      continue;
    }
    if (always.has(tool)) {
      note(`(allowed ${shownCall(interrupt)}: always allowed in this session)\n`);
      decisions.push({ callId, approve: true });
      continue;
    }
    const answer = (await ask(`allow ${shownCall(interrupt)}? [y/N/a(lways)] `)).trim();
    if (/^a(lways)?$/i.test(answer)) always.add(tool);
    if (/^(y(es)?|a(lways)?)$/i.test(answer)) decisions.push({ callId, approve: true });
    else decisions.push({ callId, approve: false, message: 'the user said no at the prompt' });
  }
  return decisions;
}

/**
 * `--approve ID`, `--deny ID[=MESSAGE]`, `--answer ID=TEXT` (the text) and `--answer-json
 * ID=JSON` (parsed) as decisions; an id given twice, or JSON that does not parse, is a usage error.
 */
export function decisionsOf(
  approve: readonly string[],
  deny: readonly string[],
  answers: { readonly text?: readonly string[]; readonly json?: readonly string[] } = {},
): { readonly decisions: Decision[]; readonly flags: ReadonlyMap<string, string> } {
  const decisions: Decision[] = [];
  const flags = new Map<string, string>();
  const take = (flag: string, callId: string): void => {
    if (callId === '') throw new UsageError(`${flag} expects a call id`);
    if (flags.has(callId)) throw new UsageError(`${flag} ${callId}: the call is decided twice`);
    flags.set(callId, `${flag} ${callId}`);
  };
  for (const callId of approve) {
    take('--approve', callId);
    decisions.push({ callId, approve: true });
  }
  for (const value of deny) {
    const at = value.indexOf('=');
    const callId = at < 0 ? value : value.slice(0, at);
    take('--deny', callId);
    const message = at < 0 ? undefined : value.slice(at + 1);
    decisions.push(
      message === undefined || message === ''
        ? { callId, approve: false }
        : { callId, approve: false, message },
    );
  }
  for (const [flag, values] of [
    ['--answer', answers.text ?? []],
    ['--answer-json', answers.json ?? []],
  ] as const) {
    for (const value of values) {
      const at = value.indexOf('=');
      if (at < 0)
        throw new UsageError(
          `${flag} ${value}: expected CALL_ID=${flag === '--answer' ? 'TEXT' : 'JSON'}`,
        );
      const callId = value.slice(0, at);
      take(flag, callId);
      const text = value.slice(at + 1);
      decisions.push({
        callId,
        answer: flag === '--answer' ? text : parsedJson(flag, callId, text),
      });
    }
  }
  return { decisions, flags };
}

function parsedJson(flag: string, callId: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${flag} ${callId}: not JSON: ${text}`);
  }
}
