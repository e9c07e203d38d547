import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

function missingDatabase(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-missing-')), 'nope.db');
}

/** Nothing at all was written next to `db`: no file, no -wal, no -shm, no lock. */
function expectNothingCreated(db: string): void {
  expect(existsSync(db)).toBe(false);
  expect(readdirSync(dirname(db))).toEqual([]);
}

describe('mh --db on a file that does not exist', { timeout: 60_000 }, () => {
  it('--list-sessions says there is no database there, exits 2 and creates nothing', async () => {
    const db = missingDatabase();
    const run = await runCli(['--db', db, '--list-sessions']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(
      `mh: --db ${db}: no such session database (nothing to list; a run with --db ${db} creates it)`,
    );
    expectNothingCreated(db);
  });

  it('--session ID is an error naming the path, and creates nothing', async () => {
    const db = missingDatabase();
    const run = await runCli(['--fake', '--db', db, '--session', 's-1', 'hello']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(
      `mh: --db ${db}: no such session database, so no session s-1 to resume (omit --session to start one)`,
    );
    expectNothingCreated(db);
  });

  it('--list-tools lists the tools and creates nothing', async () => {
    const db = missingDatabase();
    const run = await runCli(['--fake', '--db', db, '--list-tools']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('calculator');
    expectNothingCreated(db);
  });

  it('a new session still creates the database', async () => {
    const db = missingDatabase();
    const run = await runCli(['--fake', '--db', db, 'What is 6*7?']);
    expect([run.code, run.stdout]).toEqual([0, 'The answer is 42.\n']);
    expect(existsSync(db)).toBe(true);
  });
});
