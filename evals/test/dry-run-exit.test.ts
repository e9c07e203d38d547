import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The built entry of `pnpm --filter evals run-real` (the test task depends on the build). */
const RUN_REAL = fileURLToPath(new URL('../dist/run-real.js', import.meta.url));
/** Makes the named tasks' oracles answer wrong, inside the child. */
const SABOTAGE = pathToFileURL(
  fileURLToPath(new URL('./fixtures/sabotage-oracle.mjs', import.meta.url)),
);

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `run-real --dry-run` in a child process with `sabotaged` tasks failing their oracle. */
function dryRun(args: readonly string[], sabotaged: readonly string[] = []): Promise<Exit> {
  const child = spawn(
    process.execPath,
    ['--import', SABOTAGE.href, RUN_REAL, '--dry-run', ...args],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        MH_EVALS_SABOTAGE: sabotaged.join(','),
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mh-evals-exit-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the dry run, as a child process', () => {
  it('exits 0 when every oracle run passes', async () => {
    const exit = await dryRun(['--cases', 'lookup', '--repeats', '2', '--out', join(folder, 'ok')]);
    expect(exit.stdout).toContain('6/6 runs passed (DRY RUN)');
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
  });

  it('exits 1 when an oracle run fails, naming each failing task on stderr', async () => {
    const exit = await dryRun(
      ['--cases', 'lookup,arithmetic', '--repeats', '2', '--out', join(folder, 'failing')],
      ['lookup-max-retries', 'arithmetic-checkout-5xx-count'],
    );
    expect(exit.code).toBe(1);
    expect(exit.stdout).toContain('8/12 runs passed (DRY RUN)');
    const lines = exit.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'run-real: dry run failed: 4 of 12 oracle runs did not pass, in 2 tasks:',
    );
    expect(lines.slice(1).map((line) => line.trim().split(' (')[0])).toEqual(
      expect.arrayContaining(['lookup-max-retries', 'arithmetic-checkout-5xx-count']),
    );
    expect(lines).toHaveLength(3);
    expect(exit.stderr).toContain('(repeats 1, 2)');
  });
});
