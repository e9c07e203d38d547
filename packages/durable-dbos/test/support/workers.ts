import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = join(here, '..', 'children', 'worker.mjs');

/** Builds what the worker children import (plain Node runs them: it cannot load `.ts`). */
export function buildWorkerPackages(): void {
  const tsc = join(
    dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
  const packages = join(here, '..', '..', '..');
  execFileSync(
    process.execPath,
    [tsc, '-b', ...['session-sql', 'sdk', 'durable-dbos'].map((name) => join(packages, name))],
    { stdio: 'pipe' },
  );
}

/** What a worker child is told. */
export interface WorkerJob {
  readonly systemUrl: string;
  readonly storeUrl: string;
  readonly storeSchema: string;
  readonly modelUrl: string;
  readonly sideFile: string;
  readonly queueLimits?: Record<string, unknown>;
  /** The queues and their limits (default: `agents` with `queueLimits`). */
  readonly queues?: Record<string, Record<string, unknown>>;
  readonly toolMs?: number;
  readonly recoveryIntervalMs?: number;
}

/** A worker child process. */
export interface WorkerChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves when it is launched and listening on its queues. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  stderr(): string;
  kill(): Promise<void>;
}

export function spawnWorker(job: WorkerJob): WorkerChild {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('ready ')) resolve();
    });
    void exited.then(() => reject(new Error(`worker exited before it was ready: ${stderr}`)));
  });
  return {
    child,
    pid: child.pid ?? -1,
    ready,
    exited,
    stderr: () => stderr,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Each tool run the workers logged: `start <callId> <pid>`, `end …`, `read …`. */
export function sideEffects(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes. */
export async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
