import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-lock-')), 'mh.db');
}

/** The lock files next to `db`. */
function locks(db: string): string[] {
  const dir = join(db, '..');
  return readdirSync(dir).filter((name) => name.endsWith('.lock'));
}

/** A session with one answered turn; its id. */
async function sessionWithOneTurn(db: string): Promise<string> {
  const first = await runCli(['--fake', '--db', db, 'hi']);
  expect(first.code).toBe(0);
  return /session (s-[\w-]+),/.exec(first.stderr)?.[1] ?? '';
}

/** Messages of the session's main branch, one role per line, as `/history` shows them. */
async function roles(db: string, id: string): Promise<string[]> {
  const run = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => /^(user|assistant) /.test(line))
    .map((line) => line.split(/\s+/)[0] ?? '');
}

// Each test starts two to five mh processes (Node + SQLite): give them time on a loaded machine.
describe('mh --db: one mh per session', { timeout: 90_000 }, () => {
  it('refuses a second mh on a session another mh is answering in, exit 2, and answers once', async () => {
    const db = database();
    const id = await sessionWithOneTurn(db);
    const first = startCli(['--fake', '--db', db, '--session', id, '--fake-delay-ms', '500']);
    first.child.stdin.end('What is 6*7?\n');
    await waitFor(() => first.output.stderr.includes('(session'));
    const second = await runCli(
      ['--fake', '--db', db, '--session', id, '--fake-delay-ms', '50', 'hello B'],
      '',
    );
    expect(first.child.exitCode).toBeNull();
    expect([second.code, second.stdout, second.stderr]).toEqual([
      2,
      '',
      `mh: session ${id} is in use by another mh (pid ${first.child.pid}); wait for it to finish\n`,
    ]);
    const done = await first.done;
    expect([done.code, done.stdout.trim()]).toEqual([0, 'The answer is 42.']);
    expect(done.stderr).not.toContain('error');
    expect(locks(db)).toEqual([]);
    // hi and its answer, then 6*7: the question, the calculator call, its result, the answer.
    expect(await roles(db, id)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('locks a new session under the id it prints, and removes the lock at the end', async () => {
    const db = database();
    const first = startCli(['--fake', '--db', db, '--fake-delay-ms', '40']);
    first.child.stdin.write(`Tell me a story about ${'a long road '.repeat(10)}\n`);
    await waitFor(() => /session (s-[\w-]+),/.test(first.output.stderr));
    const id = /session (s-[\w-]+),/.exec(first.output.stderr)?.[1] ?? '';
    expect(locks(db)).toEqual([`mh.db.${id}.lock`]);
    const second = await runCli(['--fake', '--db', db, '--session', id, 'hello']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`session ${id} is in use by another mh`);
    first.child.stdin.end();
    expect((await first.done).code).toBe(0);
    expect(locks(db)).toEqual([]);
  });

  it('takes over the lock of an mh that died, and removes it on a second Ctrl-C', async () => {
    const db = database();
    const id = await sessionWithOneTurn(db);
    // A process that has exited: its pid is dead (a crash or kill -9 left its lock behind).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(
      `${db}.${id}.lock`,
      JSON.stringify({ pid: Number(dead.stdout), startedAt: new Date(0).toISOString() }),
    );
    const run = startCli(['--fake', '--db', db, '--session', id]);
    await waitFor(() => run.output.stderr.includes('(session'));
    expect(locks(db)).toEqual([`mh.db.${id}.lock`]);
    run.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    expect(existsSync(`${db}.${id}.lock`)).toBe(false);
  });

  it('removes the lock when the reader of stdout goes away (the quiet EPIPE exit)', async () => {
    const db = database();
    const run = startCli(['--fake', '--db', db, '--fake-delay-ms', '5', 'What is 6*7?']);
    run.child.stdout.destroy();
    run.child.stdin.end();
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/session s-/);
    expect(locks(db)).toEqual([]);
  });

  it('says in words, not heads, that another writer changed the session', async () => {
    const db = database();
    const id = await sessionWithOneTurn(db);
    const first = startCli(['--fake', '--db', db, '--session', id, '--fake-delay-ms', '500']);
    first.child.stdin.end('What is 6*7?\n');
    await waitFor(() => first.output.stderr.includes('(session'));
    // A writer that does not know the lock (or one on PostgreSQL, where there is none).
    rmSync(`${db}.${id}.lock`, { force: true });
    const second = await runCli(['--fake', '--db', db, '--session', id, 'hello B']);
    expect(second.code).toBe(0);
    const done = await first.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain(
      `mh: another writer changed session ${id} (it moved on to another head); run again to continue from there`,
    );
    expect(done.stderr).not.toMatch(/[0-9a-f]{64}/);
  });
});
