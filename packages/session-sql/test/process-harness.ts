import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Builds this package (and core) with `tsc -b`: child processes run plain Node 20, which cannot
 * load `.ts`, so they import the built `@mh/session-sql` through the package's own exports.
 */
export function buildPackage(): void {
  const tsc = join(
    dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
    'bin',
    'tsc',
  );
  execFileSync(process.execPath, [tsc, '-b', join(here, '..')], { stdio: 'pipe' });
}

/** A child process running one of the scripts in `test/children`. */
export interface Child {
  readonly process: ChildProcess;
  /** Resolves when the child has printed `ready` (its modules are loaded). */
  readonly ready: Promise<void>;
  /** Resolves once the child has printed `word` on its standard output. */
  printed(word: string): Promise<void>;
  /** Resolves with the exit code (or the signal's name) when it ends. */
  readonly exited: Promise<number | string>;
}

/** Starts `node test/children/<script> ...args`; its stderr is kept for failure messages. */
export function startChild(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(here, 'children', script), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    child.emit('printed');
  });
  const exited = once(child, 'exit').then(([code, signal]) => {
    if (code !== 0 && signal === null) throw new Error(`${script} exited ${code}: ${stderr}`);
    return (code ?? signal) as number | string;
  });
  exited.catch(() => undefined);
  const printed = (word: string): Promise<void> => {
    const seen = new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!stdout.includes(word)) return;
        child.off('printed', check);
        resolve();
      };
      child.on('printed', check);
      check();
      exited.then(
        () => reject(new Error(`${script} ended before printing ${word}: ${stderr}`)),
        reject,
      );
    });
    seen.catch(() => undefined);
    return seen;
  };
  return { process: child, ready: printed('ready'), printed, exited };
}

/** Tells waiting children to start. */
export function go(children: readonly Child[]): void {
  for (const child of children) child.process.stdin?.write('go\n');
}
