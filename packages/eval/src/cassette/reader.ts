import { readFileSync } from 'node:fs';
import { ConfigError, TOOL_CALL_STATUSES } from '@mh/core';
import { checkAskedQuestion } from '@mh/core/internal';
import { CassetteFileError } from './errors.js';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type CassetteHeader,
  keyId,
  REQUEST_OUTCOMES,
  type RequestEntry,
  type ToolEntry,
} from './format.js';

/** A cassette file, parsed and checked. */
export interface ParsedCassette {
  readonly header: CassetteHeader;
  /** Request entries by key id, then by `index`. */
  readonly requests: ReadonlyMap<string, ReadonlyMap<number, RequestEntry>>;
  /** Tool entries by key id, in `index` order. */
  readonly tools: ReadonlyMap<string, readonly ToolEntry[]>;
  /** Problems that did not stop reading (a truncated last line, a duplicate entry). */
  readonly warnings: readonly string[];
  /** Bytes up to and including the last newline: where an append must start. */
  readonly completeBytes: number;
  /** What follows the last newline: nothing, a whole line, or a truncated one (dropped). */
  readonly tail: 'none' | 'whole' | 'truncated';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isIndex = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isDuration = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** What is wrong with an entry's key fields, or undefined. */
function keyProblem(entry: Json): string | undefined {
  if (typeof entry.case !== 'string' || entry.case === '')
    return 'case: expected a non-empty string';
  if (!isIndex(entry.repeat)) return 'repeat: expected an integer >= 0';
  if (!isIndex(entry.index)) return 'index: expected an integer >= 0';
  return undefined;
}

function requestProblem(entry: Json): string | undefined {
  if (
    entry.sharedMessages !== undefined &&
    !(isIndex(entry.sharedMessages) && entry.sharedMessages > 0)
  )
    return 'sharedMessages: expected an integer >= 1';
  const request = entry.request;
  if (!isObject(request)) return 'request: expected an object';
  if (typeof request.model !== 'string') return 'request.model: expected a string';
  if (!Array.isArray(request.messages)) return 'request.messages: expected an array';
  if (!Array.isArray(request.tools)) return 'request.tools: expected an array';
  if (!Array.isArray(entry.events)) return 'events: expected an array';
  for (const [index, recorded] of entry.events.entries()) {
    if (!isObject(recorded) || !isDuration(recorded.ms))
      return `events[${index}].ms: expected a number >= 0`;
    if (!isObject(recorded.event) || typeof recorded.event.type !== 'string')
      return `events[${index}].event: expected a stream event with a type`;
  }
  if (!(REQUEST_OUTCOMES as readonly unknown[]).includes(entry.outcome))
    return `outcome: expected one of ${REQUEST_OUTCOMES.join(', ')}`;
  if (entry.outcome === 'error') {
    const error = entry.error;
    if (!isObject(error) || typeof error.name !== 'string' || typeof error.message !== 'string')
      return 'error: expected { name, message }';
  }
  if (!isDuration(entry.durationMs)) return 'durationMs: expected a number >= 0';
  return undefined;
}

function toolProblem(entry: Json): string | undefined {
  const call = entry.call;
  if (!isObject(call) || call.type !== 'tool_use' || typeof call.id !== 'string')
    return 'call: expected a tool_use block';
  if (typeof call.name !== 'string') return 'call.name: expected a string';
  const outcome = entry.outcome;
  if (!isObject(outcome)) return 'outcome: expected an object';
  if (!(TOOL_CALL_STATUSES as readonly unknown[]).includes(outcome.status))
    return `outcome.status: expected one of ${TOOL_CALL_STATUSES.join(', ')}`;
  const result = outcome.result;
  if (
    !isObject(result) ||
    result.type !== 'tool_result' ||
    !Array.isArray(result.content) ||
    typeof result.isError !== 'boolean'
  )
    return 'outcome.result: expected a tool_result block';
  if (!isIndex(outcome.attempts)) return 'outcome.attempts: expected an integer >= 0';
  if (!isDuration(outcome.durationMs)) return 'outcome.durationMs: expected a number >= 0';
  return questionProblem(outcome);
}

/** A recorded question: present exactly on an `interrupted` outcome, and well-formed. */
function questionProblem(outcome: Json): string | undefined {
  if ((outcome.status === 'interrupted') !== (outcome.question !== undefined))
    return 'outcome.question: expected exactly on an interrupted outcome';
  if (outcome.question === undefined) return undefined;
  try {
    checkAskedQuestion(outcome.question, 'outcome.question');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function parseHeader(path: string, line: string | undefined): CassetteHeader {
  let header: unknown;
  try {
    header = JSON.parse(line ?? '');
  } catch {
    throw new CassetteFileError(path, 'not-a-cassette', 'not a cassette (no JSON header line)');
  }
  if (!isObject(header) || header.type !== 'header' || header.format !== CASSETTE_FORMAT)
    throw new CassetteFileError(
      path,
      'not-a-cassette',
      `not a cassette (the first line is not a "${CASSETTE_FORMAT}" header)`,
    );
  if (!isIndex(header.version) || header.version < 1)
    throw new CassetteFileError(path, 'corrupt', 'the header has no valid version');
  if (header.version > CASSETTE_VERSION)
    throw new CassetteFileError(
      path,
      'newer-version',
      `cassette format version ${header.version} is newer than this @mh/eval reads (${CASSETTE_VERSION}); upgrade @mh/eval or record again`,
    );
  return {
    type: 'header',
    format: CASSETTE_FORMAT,
    version: header.version,
    createdAt: typeof header.createdAt === 'string' ? header.createdAt : '',
    meta: isObject(header.meta) ? header.meta : {},
  };
}

/**
 * Puts back the messages a line shares with the previous request of its key (`sharedMessages`),
 * in index order, so every entry read holds its whole request.
 */
function completeMessages(
  path: string,
  byIndex: Map<number, RequestEntry>,
  lineOf: ReadonlyMap<RequestEntry, number>,
): void {
  for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
    const entry = byIndex.get(index) as RequestEntry;
    const shared = entry.sharedMessages;
    if (shared === undefined) continue;
    const previous = byIndex.get(index - 1)?.request.messages;
    if (previous === undefined || previous.length < shared)
      throw new CassetteFileError(
        path,
        'corrupt',
        `line ${lineOf.get(entry)}: request ${index} shares ${shared} message(s) with request ${index - 1}, which ${previous === undefined ? 'is missing' : `has ${previous.length}`}`,
      );
    const { sharedMessages: _shared, ...rest } = entry;
    byIndex.set(index, {
      ...rest,
      request: {
        ...entry.request,
        messages: [...previous.slice(0, shared), ...entry.request.messages],
      },
    });
  }
}

/**
 * Parses a cassette. A last line without its newline that does not parse is the trace of a crash
 * while recording: it is dropped with a warning. Any other bad line refuses the whole file.
 */
export function parseCassette(path: string, bytes: Buffer): ParsedCassette {
  const completeBytes = bytes.lastIndexOf(0x0a) + 1;
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  // The segment after the last newline is empty for a complete file.
  const tail = lines.pop() ?? '';
  const warnings: string[] = [];
  let tailKind: ParsedCassette['tail'] = tail === '' ? 'none' : 'whole';
  if (lines.length === 0 && tail === '')
    throw new CassetteFileError(path, 'not-a-cassette', 'the file is empty');
  if (lines.length === 0) {
    // A header that lost its newline but is whole is still a header.
    lines.push(tail);
  } else if (tail !== '') {
    try {
      JSON.parse(tail);
      lines.push(tail);
    } catch {
      tailKind = 'truncated';
      warnings.push(
        `${path}: line ${lines.length + 1} is truncated (the recording was interrupted); ignored`,
      );
    }
  }
  const header = parseHeader(path, lines[0]);
  const requests = new Map<string, Map<number, RequestEntry>>();
  const tools = new Map<string, ToolEntry[]>();
  const lineOf = new Map<RequestEntry, number>();
  for (let number = 2; number <= lines.length; number++) {
    const line = lines[number - 1] ?? '';
    if (line.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new CassetteFileError(path, 'corrupt', `line ${number} is not valid JSON`);
    }
    if (!isObject(entry) || (entry.type !== 'request' && entry.type !== 'tool'))
      throw new CassetteFileError(path, 'corrupt', `line ${number}: unknown entry type`);
    const problem =
      keyProblem(entry) ?? (entry.type === 'request' ? requestProblem(entry) : toolProblem(entry));
    if (problem !== undefined)
      throw new CassetteFileError(path, 'corrupt', `line ${number}: ${problem}`);
    const id = keyId({ case: entry.case as string, repeat: entry.repeat as number });
    const index = entry.index as number;
    if (entry.type === 'request') {
      const byIndex = requests.get(id) ?? new Map<number, RequestEntry>();
      requests.set(id, byIndex);
      if (byIndex.has(index)) {
        warnings.push(`${path}: line ${number} records request ${index} of ${id} again; ignored`);
        continue;
      }
      byIndex.set(index, entry as unknown as RequestEntry);
      lineOf.set(entry as unknown as RequestEntry, number);
    } else {
      const list = tools.get(id) ?? [];
      tools.set(id, list);
      list.push(entry as unknown as ToolEntry);
    }
  }
  for (const list of tools.values()) list.sort((a, b) => a.index - b.index);
  for (const byIndex of requests.values()) completeMessages(path, byIndex, lineOf);
  return { header, requests, tools, warnings, completeBytes, tail: tailKind };
}

/** Reads and parses a cassette file; a missing or unreadable file is a `CassetteFileError`. */
export function loadCassette(path: string): ParsedCassette {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new CassetteFileError(
        path,
        'missing',
        "no cassette here (record one with mode 'record')",
      );
    throw new CassetteFileError(path, 'unreadable', `cannot read the file (${code})`, {
      cause: error,
    });
  }
  return parseCassette(path, bytes);
}

/** A cassette's whole content, for inspection (reports, prefix checks, tooling). */
export interface CassetteContent {
  /** The header line. */
  readonly header: CassetteHeader;
  /** Every request, whole (shared messages put back), by key then index. */
  readonly requests: readonly RequestEntry[];
  /** Every tool call, by key then index. */
  readonly tools: readonly ToolEntry[];
  /** Problems that did not stop reading (a truncated last line, a duplicate entry). */
  readonly warnings: readonly string[];
}

/**
 * Reads a cassette file without replaying it: the header and every entry, checked as
 * `openCassette` checks them (`CassetteFileError` for a file it would refuse).
 */
export function readCassetteFile(path: string): CassetteContent {
  if (typeof path !== 'string' || path.trim() === '')
    throw new ConfigError('path', 'expected the path of a cassette file');
  const parsed = loadCassette(path);
  const order = (a: { case: string; repeat: number; index: number }, b: typeof a): number =>
    a.case === b.case
      ? a.repeat === b.repeat
        ? a.index - b.index
        : a.repeat - b.repeat
      : a.case < b.case
        ? -1
        : 1;
  return {
    header: parsed.header,
    requests: [...parsed.requests.values()].flatMap((byIndex) => [...byIndex.values()]).sort(order),
    tools: [...parsed.tools.values()].flat().sort(order),
    warnings: parsed.warnings,
  };
}
