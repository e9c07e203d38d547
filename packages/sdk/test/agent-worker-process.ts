import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Builds what `children/agent-worker.mjs` imports with `tsc -b` (the sdk, its references, and the
 * SQLite store): children run plain Node 20, which cannot load `.ts`.
 */
export function buildWorkerPackages(): void {
  const tsc = join(
    dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
  const packages = join(here, '..', '..');
  execFileSync(
    process.execPath,
    [tsc, '-b', join(packages, 'session-sql'), join(packages, 'sdk')],
    { stdio: 'pipe' },
  );
}

/** What a worker is told to do once it is warm. */
export interface WorkerJob {
  readonly sessionId: string;
  /** The file each tool run appends `<tool> <callId>` to. */
  readonly sideEffects: string;
  /** The file the worker logs its phases to. */
  readonly phaseLog: string;
}

/** A started `agent-worker.mjs`: it loads its modules, then waits for `go`. */
export interface AgentWorker {
  readonly child: ChildProcess;
  /** Resolves once its modules are loaded; rejects if it ends first. */
  readonly ready: Promise<void>;
  /** Starts the job. */
  go(job: WorkerJob): void;
  /** Resolves once the worker has printed `count` phase lines, or has ended. */
  lines(count: number): Promise<void>;
  /** The exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/** Starts a worker that runs the script `plan` on the SQLite file `db`. */
export function startAgentWorker(db: string, plan: unknown): AgentWorker {
  const child = spawn(
    process.execPath,
    [join(here, 'children', 'agent-worker.mjs'), db, JSON.stringify(plan)],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let waiting: { count: number; resolve: () => void } | undefined;
  // Lines after `ready`, not counting the unfinished tail.
  const printedLines = (): number => stdout.split('\n').length - 2;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const loaded = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) resolve();
      if (waiting && printedLines() >= waiting.count) waiting.resolve();
    });
  });
  const ready = Promise.race([
    loaded,
    exited.then(() => {
      throw new Error(`the worker ended before it was ready: ${stderr}`);
    }),
  ]);
  // A warm worker killed at the end of the test is never awaited: that is not a failure.
  ready.catch(() => undefined);
  return {
    child,
    ready,
    go: (job) => child.stdin?.write(`${JSON.stringify(job)}\n`),
    lines: (count) =>
      Promise.race([
        new Promise<void>((resolve) => {
          waiting = { count, resolve };
          if (printedLines() >= count) resolve();
        }),
        exited.then(() => undefined),
      ]),
    exited,
    stderr: () => stderr,
  };
}

/** The non-empty lines of a file ([] when it does not exist). */
export function readLines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0)
    : [];
}

/** Where a kill landed, from the last line the worker logged (without ids and pids). */
export function killPoint(phaseLog: string): string {
  const last = readLines(phaseLog).at(-1);
  if (last === undefined) return 'before any work';
  const [kind, name, detail, ran] = last.split(' ');
  if (kind === 'worker') return 'opening the store';
  if (kind === 'completed') return 'after completing';
  if (kind === 'model') return 'in a model call';
  if (kind === 'tool') return ran ? `${name} ran, result not journaled` : `in ${name}`;
  if (kind === 'store' && name === 'open') return 'store opened';
  if (kind === 'store') return detail === 'done' ? `after store.${name}` : `in store.${name}`;
  return last;
}
