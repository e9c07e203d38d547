import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, MAIN, runCli } from './run-cli.js';

/** The user mh runs as when the test runs as root (nobody): chmod does not stop root. */
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** Runs `mh` as nobody when root (as this user otherwise, whom chmod does stop). */
function runUnprivileged(args: readonly string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), NO_COLOR: '1' },
    ...(isRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  child.stdin.end();
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
}

// Without POSIX user ids (Windows) file modes mean nothing here.
describe.skipIf(typeof process.getuid !== 'function')(
  'mh --db on a database it may not write',
  {
    timeout: 60_000,
  },
  () => {
    let base: string;
    let cannotRun: string | undefined;
    beforeAll(async () => {
      base = mkdtempSync(join(tmpdir(), 'mh-read-only-'));
      chmodSync(base, 0o755);
      const made = await runCli(['--fake', '--db', join(base, 'source.db'), 'hello']);
      expect(made.code).toBe(0);
      // As nobody, mh must be able to read itself: a checkout in a private home folder is not.
      const probe = await runUnprivileged(['--version']);
      if (probe.code !== 0)
        cannotRun = `uid ${NOBODY} cannot run ${MAIN} (${probe.stderr.trim().split('\n')[0]})`;
    });

    /** A copy of the session database in `name`/, owned by the unprivileged user. */
    function database(name: string): { dir: string; db: string } {
      const dir = join(base, name);
      mkdirSync(dir);
      const db = join(dir, 'mh.db');
      copyFileSync(join(base, 'source.db'), db);
      if (isRoot) {
        chownSync(dir, NOBODY, NOBODY);
        chownSync(db, NOBODY, NOBODY);
      }
      return { dir, db };
    }

    it('a read-only file is one line naming the path, exit 2, before any prompt runs', async ({
      skip,
    }) => {
      if (cannotRun) skip(cannotRun);
      const { db } = database('file');
      chmodSync(db, 0o444);
      const run = await runUnprivileged(['--fake', '--db', db, 'hello']);
      expect([run.code, run.stdout, run.stderr]).toEqual([
        2,
        '',
        `mh: --db: ${db}: is read-only (this process may not write it)\n`,
      ]);
    });

    it('a database in a read-only folder is the same error, not "corrupt"', async ({ skip }) => {
      if (cannotRun) skip(cannotRun);
      const { dir, db } = database('folder');
      chmodSync(dir, 0o555);
      const run = await runUnprivileged(['--fake', '--db', db, 'hello']);
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toMatch(
        new RegExp(`^mh: --db: ${db}: cannot be written: its folder .* is read-only`),
      );
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('the unprivileged user can use a writable copy (the control)', async ({ skip }) => {
      if (cannotRun) skip(cannotRun);
      const { db } = database('writable');
      const run = await runUnprivileged(['--fake', '--db', db, 'What is 6*7?']);
      expect([run.code, run.stdout]).toEqual([0, 'The answer is 42.\n']);
    });
  },
);
