import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@mh/session-sql';
import { describe, expect, it } from 'vitest';
import { type CliRun, MAIN, runCli, startCli } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-pipe-')), 'mh.db');
}

/** Runs mh with its stdout's reader gone before mh writes a byte: every write meets EPIPE. */
function withStdoutClosed(args: readonly string[], input = ''): Promise<CliRun> {
  const { child, done } = startCli(args);
  child.stdout.destroy();
  child.stdin.end(input);
  return done;
}

/** Runs mh with its stderr's reader gone: its notes cannot be shown, its answer still can. */
function withStderrClosed(args: readonly string[], input = ''): Promise<CliRun> {
  const { child, done } = startCli(args);
  child.stderr.destroy();
  child.stdin.end(input);
  return done;
}

/** `mh ARGS | head -n 1` through a real shell; resolves with mh's own exit code and stderr. */
function pipedToHead(args: readonly string[]): Promise<CliRun> {
  const script = '"$@" | head -n 1; exit $PIPESTATUS'; // mh's status, not head's
  const child = spawn('bash', ['-c', script, 'bash', process.execPath, MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  child.stdin.end();
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
}

function expectQuiet(run: CliRun, code = 0): void {
  expect(run.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
  expect(run.code).toBe(code);
}

describe('mh when the reader goes away', { timeout: 90_000 }, () => {
  it('lists sessions into `| head -n 1` and exits 0 without a stack trace', async () => {
    const db = database();
    const store = await openSqliteStore(db);
    // Far more than a pipe holds (64 KiB), so mh is still writing when head has gone.
    for (let i = 0; i < 1000; i++)
      await store.createSession({
        title: `session number ${i} ${'about a long subject '.repeat(3)}`,
      });
    await store.close();
    const run = await pipedToHead(['--db', db, '--list-sessions']);
    expectQuiet(run);
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  it('ends quietly on every output path when stdout is closed', async () => {
    const db = database();
    expect((await runCli(['--fake', '--db', db, 'What is 6*7?'])).code).toBe(0);
    for (const args of [
      ['--db', db, '--list-sessions'],
      ['--fake', '--list-tools'],
      ['--help'],
      ['--version'],
      ['--fake', 'What is 6*7?'],
      ['--fake', '--trace', 'What is 6*7?'],
    ]) {
      const run = await withStdoutClosed(args);
      expect.soft(run.stderr, args.join(' ')).not.toMatch(/EPIPE|Error:|\n\s+at /);
      expect.soft(run.code, args.join(' ')).toBe(0);
    }
  });

  it('ends quietly when stdout closes during /history and /help in the REPL', async () => {
    const run = await withStdoutClosed(['--fake'], 'hello\n/history\n/help\n');
    expectQuiet(run);
  });

  it('still answers on stdout, exit 0, when stderr is closed', async () => {
    for (const args of [
      ['--fake', '--trace', 'What is 6*7?'],
      // Notes on stderr (the session line, the tool call) come before the answer streams.
      ['--fake', '--db', database(), '--fake-delay-ms', '5', 'What is 6*7?'],
    ]) {
      const run = await withStderrClosed(args);
      expect.soft(run.stdout, args.join(' ')).toBe('The answer is 42.\n');
      expect.soft(run.code, args.join(' ')).toBe(0);
    }
  });
});
