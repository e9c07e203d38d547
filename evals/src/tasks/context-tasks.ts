import { textAnswer } from '../grading/comparators.js';
import {
  callTool,
  finalAnswer,
  giveUp,
  type OraclePolicy,
  type OracleStep,
  type OracleView,
  resultOf,
} from '../oracle/oracle-policy.js';
import { fileText, pathsUnder } from '../workspace/generate-workspace.js';
import { csvRecords } from '../workspace/read-text.js';
import type { Task, TaskCompaction } from './task.js';

/**
 * The window the context tasks run in: far below any real model's, so the history outgrows it
 * whatever route the model takes through the files. The recent part kept verbatim holds the
 * newest file read whole.
 */
const SMALL_WINDOW: TaskCompaction = { contextWindow: 6_000, keepRecentTokens: 2_000 };

/** The row with the largest `column` and the runner-up, from CSV text. */
export function topTwo(
  text: string,
  column: string,
): { first?: Record<string, string>; second?: Record<string, string> } {
  const rows = csvRecords(text).sort((a, b) => Number(b[column]) - Number(a[column]));
  return { first: rows[0], second: rows[1] };
}

/** A per-file note: `NOTE <path> max <id> <value> second <id> <value>`. */
const FILE_NOTE = /^NOTE (\S+) max (\S+) ([\d.]+) second (\S+) ([\d.]+)$/;

interface FileNote {
  readonly path: string;
  readonly max: { readonly id: string; readonly value: number };
  readonly second: { readonly id: string; readonly value: number };
}

function fileNotes(view: OracleView): FileNote[] {
  return view.notes.flatMap((note) => {
    const match = FILE_NOTE.exec(note);
    if (!match) return [];
    const [, path = '', maxId = '', maxValue, secondId = '', secondValue] = match;
    return [
      {
        path,
        max: { id: maxId, value: Number(maxValue) },
        second: { id: secondId, value: Number(secondValue) },
      },
    ];
  });
}

/** How the scan of several files ends: the answer from the file notes. */
type Conclude = (notes: readonly FileNote[]) => string | undefined;

/**
 * Reads every file of a folder one at a time, noting each file's two largest rows as soon as it
 * is read (notes survive compaction, the file contents may not), then answers from the notes.
 */
function scanPolicy(options: {
  readonly list: (view: OracleView) => OracleStep | string[];
  readonly key: string;
  readonly column: string;
  readonly limit?: number;
  readonly conclude: Conclude;
}): OraclePolicy {
  return (view) => {
    const listed = options.list(view);
    if (!Array.isArray(listed)) return listed;
    const files = listed.slice(0, options.limit ?? listed.length);
    const notes = fileNotes(view);
    const fresh: string[] = [];
    const done = new Set(notes.map((note) => note.path));
    const latest = view.results.at(-1);
    const latestPath = String(latest?.input.path ?? '');
    if (
      latest?.name === 'read_file' &&
      !latest.isError &&
      files.includes(latestPath) &&
      !done.has(latestPath)
    ) {
      const { first, second } = topTwo(latest.text, options.column);
      if (!first || !second) return giveUp(`${latestPath} has fewer than two rows`);
      const line = `NOTE ${latestPath} max ${first[options.key]} ${first[options.column]} second ${second[options.key]} ${second[options.column]}`;
      fresh.push(line);
      done.add(latestPath);
      notes.push(...fileNotes({ ...view, notes: [line] }));
    }
    const next = files.find((file) => !done.has(file));
    if (next) return callTool('read_file', { path: next }, fresh);
    const value = options.conclude(notes.filter((note) => files.includes(note.path)));
    return value ? finalAnswer(value, fresh) : giveUp('no rows noted');
  };
}

/** The largest value over the notes, or the runner-up when `second`. */
function largest(second: boolean): Conclude {
  return (notes) => {
    const candidates = notes
      .flatMap((note) => [note.max, note.second])
      .sort((a, b) => b.value - a.value);
    return candidates[second ? 1 : 0]?.id;
  };
}

/** Lists `folder` with glob once and notes the files, then reads the notes. */
function globbed(folder: string): (view: OracleView) => OracleStep | string[] {
  return (view) => {
    const noted = view.notes.find((note) => note.startsWith(`NOTE files in ${folder}: `));
    if (noted) return noted.slice(`NOTE files in ${folder}: `.length).split(', ');
    const found = resultOf(view, 'glob', { path: folder });
    if (!found) return callTool('glob', { pattern: '*.csv', path: folder });
    const files = found.text.split('\n').filter((line) => line.endsWith('.csv'));
    if (files.length === 0) return giveUp(`no CSV files in ${folder}`);
    const first = files[0] ?? '';
    return callTool('read_file', { path: first }, [`NOTE files in ${folder}: ${files.join(', ')}`]);
  };
}

function ledgerPolicy(limit: number | undefined, second: boolean): OraclePolicy {
  return scanPolicy({
    list: globbed('ledger'),
    key: 'txn_id',
    column: 'amount_eur',
    limit,
    conclude: largest(second),
  });
}

const ledgerMax: Task = {
  id: 'context-ledger-largest',
  category: 'context',
  prompts: [
    'The four CSV files in ledger/ list the transactions of 2023, one file per quarter. Which ' +
      'transaction has the largest amount_eur over all four files? ' +
      'End your reply with a line of the form `ANSWER: <txn_id>`.',
  ],
  expected: (workspace) => {
    const rows = pathsUnder(workspace, 'ledger/').flatMap((path) =>
      csvRecords(fileText(workspace, path)),
    );
    const best = rows.reduce((a, b) => (Number(b.amount_eur) > Number(a.amount_eur) ? b : a));
    if (!best.txn_id) throw new Error('no ledger rows');
    return best.txn_id;
  },
  comparator: textAnswer(),
  compaction: SMALL_WINDOW,
  oracle: ledgerPolicy(undefined, false),
  saboteurs: [
    { name: 'forgot the last file', expect: 'wrong', policy: ledgerPolicy(3, false) },
    { name: 'the runner-up', expect: 'wrong', policy: ledgerPolicy(undefined, true) },
  ],
};

const ARCHITECTURE = 'docs/architecture.md';

/** The codename of `subsystem` in the architecture document's text. */
export function codenameIn(text: string, subsystem: string): string | undefined {
  const section = text.split('\n## ').find((part) => part.startsWith(`The ${subsystem} subsystem`));
  return section ? /(?:called|codename) ([A-Z]+)/.exec(section)?.[1] : undefined;
}

const RECALL_PROMPTS = [
  `Read ${ARCHITECTURE}. What is the codename of the storage subsystem? ` +
    'End your reply with a line of the form `ANSWER: <codename>`.',
  'Now look at the node metrics in metrics/ (one CSV file per day). Which node reached the ' +
    'highest mem_mb? End your reply with a line of the form `ANSWER: <node>`.',
  'Without opening any file again: what were your two previous answers? Give the codename and ' +
    'the node separated by a slash, in a line of the form `ANSWER: <codename>/<node>`.',
] as const;

/** The metrics folder, listed with list_dir (the ledger task uses glob). */
function listedMetrics(view: OracleView): OracleStep | string[] {
  const noted = view.notes.find((note) => note.startsWith('NOTE files in metrics: '));
  if (noted) return noted.slice('NOTE files in metrics: '.length).split(', ');
  const found = resultOf(view, 'list_dir', { path: 'metrics' });
  if (!found) return callTool('list_dir', { path: 'metrics' });
  const files = found.text
    .split('\n')
    .filter((name) => name.endsWith('.csv'))
    .map((name) => `metrics/${name}`);
  return callTool('read_file', { path: files[0] ?? 'metrics' }, [
    `NOTE files in metrics: ${files.join(', ')}`,
  ]);
}

function recallPolicy(subsystem: string, column: string): OraclePolicy {
  const metrics = scanPolicy({
    list: listedMetrics,
    key: 'node',
    column,
    conclude: largest(false),
  });
  return (view) => {
    if (view.promptNumber === 0) {
      const read = resultOf(view, 'read_file', { path: ARCHITECTURE });
      if (!read) return callTool('read_file', { path: ARCHITECTURE });
      const codename = codenameIn(read.text, subsystem);
      return codename
        ? finalAnswer(codename, [`NOTE codename of ${subsystem}: ${codename}`])
        : giveUp(`no codename for ${subsystem}`);
    }
    if (view.promptNumber === 1) {
      const step = metrics(view);
      const node = /^ANSWER: (\S+)$/m.exec(step.text ?? '')?.[1];
      return node && !step.calls
        ? finalAnswer(node, [`NOTE node with the highest ${column}: ${node}`])
        : step;
    }
    const codename = view.notes
      .find((note) => note.startsWith('NOTE codename of '))
      ?.split(': ')[1];
    const node = view.notes
      .find((note) => note.startsWith('NOTE node with the highest '))
      ?.split(': ')[1];
    return codename && node ? finalAnswer(`${codename}/${node}`) : giveUp('the notes are gone');
  };
}

const recallSession: Task = {
  id: 'context-recall-after-compaction',
  category: 'context',
  prompts: RECALL_PROMPTS,
  expected: (workspace) => {
    const codename = codenameIn(fileText(workspace, ARCHITECTURE), 'storage');
    const rows = pathsUnder(workspace, 'metrics/').flatMap((path) =>
      csvRecords(fileText(workspace, path)),
    );
    const best = rows.reduce((a, b) => (Number(b.mem_mb) > Number(a.mem_mb) ? b : a));
    if (!codename || !best.node) throw new Error('no codename or metrics');
    return `${codename}/${best.node}`;
  },
  comparator: textAnswer(),
  trajectory: (trace) => {
    const reopened = trace.toolCalls.filter((call) => call.prompt === RECALL_PROMPTS.length - 1);
    return reopened.length > 0
      ? `opened files again in the last prompt (${reopened.map((call) => call.name).join(', ')})`
      : undefined;
  },
  compaction: SMALL_WINDOW,
  oracle: recallPolicy('storage', 'mem_mb'),
  saboteurs: [
    { name: 'the ingest codename', expect: 'wrong', policy: recallPolicy('ingest', 'mem_mb') },
    {
      name: 'highest cpu, not memory',
      expect: 'wrong',
      policy: recallPolicy('storage', 'cpu_pct'),
    },
  ],
};

/** Context pressure: the history outgrows a small window, so compaction must happen. */
export const CONTEXT_TASKS: readonly Task[] = [ledgerMax, recallSession];
