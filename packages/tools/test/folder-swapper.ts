import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./exchange-swap.py', import.meta.url));

/** A real child process swapping two paths with `renameat2(RENAME_EXCHANGE)` until stopped. */
export interface FolderSwapper {
  /** True while the child is still swapping (it did not crash or give up). */
  running(): boolean;
  /** Kills the child and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `exchange-swap.py` on `a` and `b` and resolves once the first exchange happened. A
 * separate process, not a timer in this one, so the swaps land between any two system calls the
 * tools make, as an attacker's would.
 */
export function startFolderSwapper(a: string, b: string): Promise<FolderSwapper> {
  const child = spawn('python3', [SCRIPT, a, b, '180'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`swapper exited (${code}): ${stderr}`)));
    child.stdout?.once('data', () =>
      resolve({
        running: () => child.exitCode === null && child.signalCode === null,
        stop: () => stopChild(child),
      }),
    );
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
