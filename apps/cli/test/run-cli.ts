import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (the test task depends on the build). */
export const MAIN: string = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** What a finished CLI process printed and how it exited. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `mh` with a minimal environment (no API keys) and collects its output. */
export function startCli(
  args: readonly string[],
  options: { cwd?: string } = {},
): {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  done: Promise<CliRun>;
} {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
  return { child, output, done };
}

/** Runs `mh` to the end, feeding `input` on stdin (closed afterwards). */
export function runCli(
  args: readonly string[],
  input = '',
  options: { cwd?: string } = {},
): Promise<CliRun> {
  const { child, done } = startCli(args, options);
  child.stdin.end(input);
  return done;
}

/** Resolves once `predicate` holds for the collected output (polling), or rejects after `ms`. */
export async function waitFor(
  check: () => boolean,
  ms = 10_000,
  show?: () => string,
): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) {
      throw new Error(
        `timed out waiting for CLI output${show ? `; output so far:\n${show()}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
