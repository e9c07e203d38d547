import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-sessions-')), 'mh.db');
}

async function onlySessionId(db: string): Promise<string> {
  const listed = await runCli(['--db', db, '--list-sessions']);
  const rows = listed.stdout.trim().split('\n').slice(1);
  expect(rows).toHaveLength(1);
  return rows[0]?.split(/\s+/)[0] ?? '';
}

// Each test starts two to four mh processes (Node + SQLite): give them time on a loaded machine.
describe('mh --db', { timeout: 90_000 }, () => {
  it('keeps a conversation that a later mh --session continues', async () => {
    const db = database();
    expect((await runCli(['--fake', '--db', db, 'What is 6*7?'])).code).toBe(0);
    const id = await onlySessionId(db);
    const listed = await runCli(['--db', db, '--list-sessions']);
    expect(listed.stdout).toContain('What is 6*7?');
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    expect(resumed.stderr).toContain(`session ${id}, branch main: 4 message(s)`);
    expect(
      resumed.stdout.split('\n').filter((line) => /^(user|assistant) /.test(line)),
    ).toHaveLength(4);
  });

  it('answers, after a kill -9, the prompt whose answer was cut off', async () => {
    const db = database();
    const { child, output, done } = startCli(['--fake', '--db', db, '--fake-delay-ms', '40']);
    child.stdin.write(`Tell me a story about ${'a long road '.repeat(15)}\n`);
    await waitFor(() => output.stdout.length > 0);
    child.kill('SIGKILL');
    await done;
    const id = await onlySessionId(db);
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('You said: "Tell me a story');
    const roles = resumed.stdout.split('\n').filter((line) => /^(user|assistant) /.test(line));
    expect(roles.map((line) => line.split(' ')[0])).toEqual(['user', 'assistant']);
  });

  it('keeps the prompt after /reset: the conversation goes on from empty on a new branch', async () => {
    const db = database();
    const run = await runCli(['--fake', '--db', db], 'What is 1+2?\n/reset\nWhat is 2+2?\n');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('now on new branch reset-1; main is kept');
    const id = await onlySessionId(db);
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n/branches\n');
    const lines = resumed.stdout.split('\n');
    const history = lines.filter((line) => /^(user|assistant) /.test(line));
    expect(history[0]).toMatch(/^user +What is 2\+2\?$/);
    expect(history.at(-1)).toMatch(/^assistant +The answer is 4\.$/);
    expect(lines.some((line) => /^ +main +3 turns/.test(line))).toBe(true);
  });

  it('does not answer again, on resume, a prompt cancelled with Ctrl-C', async () => {
    const db = database();
    const { child, output, done } = startCli(['--fake', '--db', db, '--fake-delay-ms', '3000']);
    child.stdin.write('A question the user gives up on\n');
    await waitFor(() => output.stderr.includes('(session'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    child.stdin.end();
    await done;
    const id = await onlySessionId(db);
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    const history = resumed.stdout.split('\n').filter((line) => /^(user|assistant) /.test(line));
    expect(history).toEqual([
      expect.stringMatching(/^user +A question the user gives up on$/),
      expect.stringMatching(/^assistant +\(This request was cancelled before it was answered\.\)$/),
    ]);
  });

  it('rewinds to an earlier turn on a new branch and leaves main as it was', async () => {
    const db = database();
    await runCli(['--fake', '--db', db, 'hello']);
    const id = await onlySessionId(db);
    const run = await runCli(
      ['--fake', '--db', db, '--session', id],
      '/rewind 1 retry\nWhat is 1+1?\n/branches\n',
    );
    expect(run.stdout).toContain('rewound to turn 1 on new branch retry');
    expect(run.stdout).toMatch(/\* retry\s+4 turns/);
    expect(run.stdout).toMatch(/ {2}main\s+2 turns/);
  });

  it("reports a refused REPL command in one line in the command's words and goes on", async () => {
    const db = database();
    await runCli(['--fake', '--db', db, 'hello']);
    const id = await onlySessionId(db);
    const run = await runCli(
      ['--fake', '--db', db, '--session', id],
      '/fork main\n/switch nope\n/switch\n/rewind 9\nWhat is 6*7?\n/branches\n',
    );
    const refusals = run.stderr.split('\n').filter((line) => line.startsWith('/'));
    expect(refusals).toEqual([
      `/fork main: branch "main" already exists in session "${id}"`,
      `/switch nope: unknown branch "nope" in session "${id}"`,
      '/switch: usage: /switch BRANCH',
      '/rewind 9: no checkpoint at turn 9 on branch main (see /checkpoints)',
    ]);
    // Each refusal is one line on stderr; the next lines still run, on the branch it was on.
    expect(run.stdout).not.toMatch(/usage|no checkpoint/);
    expect(run.stdout).toContain('The answer is 42.');
    expect(run.stdout).toMatch(/\* main\s+5 turns/);
    // A piped script reports that one of its lines was refused: exit code 2.
    expect(run.code).toBe(2);
  });

  it('says a new session has no turns yet, not that mh does not know the id it printed', async () => {
    const db = database();
    const listings = await runCli(['--fake', '--db', db], '/branches\n/checkpoints\n');
    const id = /session (s-[\w-]+),/.exec(listings.stderr)?.[1] ?? '';
    expect([listings.code, listings.stdout]).toEqual([
      0,
      `(session ${id} has no turns yet: no branches to list)\n(session ${id} has no turns yet: no checkpoints to list)\n`,
    ]);
    expect(listings.stderr).not.toContain('unknown session');
    const run = await runCli(
      ['--fake', '--db', db],
      '/fork other\n/rewind 0\n/switch main\nWhat is 6*7?\n/branches\n',
    );
    const refusals = run.stderr.split('\n').filter((line) => line.startsWith('/'));
    expect(refusals).toEqual([
      '/fork other: this session has no turns yet: nothing to fork (ask something first)',
      '/rewind 0: this session has no turns yet: nothing to rewind (ask something first)',
      '/switch main: this session has no turns yet: no branch to switch to (ask something first)',
    ]);
    // The session goes on as usual once something was asked.
    expect(run.stdout).toContain('The answer is 42.');
    expect(run.stdout).toMatch(/\* main\s+3 turns/);
    expect(run.code).toBe(2);
  });

  it('lists checkpoints with the tool calls of a turn, as /history does', async () => {
    const db = database();
    const run = await runCli(['--fake', '--db', db], 'What is 6*7?\n/checkpoints\n');
    const listed = run.stdout.split('\n').filter((line) => /^\s+\d+ {2}/.test(line));
    expect(listed.map((line) => line.replace(/^.*Z {2}/, ''))).toEqual([
      'user: What is 6*7?',
      'assistant: [calls: calculator]',
      'assistant: The answer is 42.',
    ]);
  });

  it('refuses an unknown session id with exit code 2', async () => {
    const db = database();
    await runCli(['--fake', '--db', db, 'hello']);
    const run = await runCli(['--fake', '--db', db, '--session', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no session nope');
  });

  it('refuses a file that is not a session database and leaves it untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-notdb-'));
    const path = join(dir, 'notes.txt');
    const { writeFileSync, readFileSync } = await import('node:fs');
    writeFileSync(path, 'just some notes\n');
    const run = await runCli(['--fake', '--db', path, 'hello']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(path, 'utf8')).toBe('just some notes\n');
  });

  it('names --db, not the store option, when the database cannot be opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mh-notdb-'));
    const missing = join(dir, 'no', 'such', 'folder', 'mh.db');
    const run = await runCli(['--fake', '--db', missing, 'hello']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      `mh: --db: ${missing}: cannot be opened (Cannot open database because the directory does not exist)`,
    ]);
    const url = await runCli(['--fake', '--db', 'postgres://[nope', 'hello']);
    expect([url.code, url.stderr.trim()]).toEqual([2, 'mh: --db: is not a valid URL']);
  });
});
