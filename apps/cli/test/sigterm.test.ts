import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-sigterm-')), 'mh.db');
}

async function onlySessionId(db: string): Promise<string> {
  const listed = await runCli(['--db', db, '--list-sessions']);
  const rows = listed.stdout.trim().split('\n').slice(1);
  expect(rows).toHaveLength(1);
  return rows[0]?.split(/\s+/)[0] ?? '';
}

// `kill PID` and a closed terminal end mh as Ctrl-C would: the answer is cancelled and recorded.
describe('mh on SIGTERM and SIGHUP mid-answer', { timeout: 60_000 }, () => {
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal}: records the cancel, says so on stderr, exits ${code}; resume answers nothing`, async () => {
      const db = database();
      const { child, output, done } = startCli([
        '--fake',
        '--db',
        db,
        '--fake-delay-ms',
        '200',
        `hello ${'there '.repeat(20)}`,
      ]);
      await waitFor(
        () => output.stdout.length > 0,
        10_000,
        () => output.stderr,
      );
      child.kill(signal);
      const run = await done;
      expect(run.code).toBe(code);
      expect(run.stderr).toContain(`mh: ${signal}: cancelling the answer`);
      const id = await onlySessionId(db);
      const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
      expect(resumed.code).toBe(0);
      // The prompt and the cancel (its mark, or the partial answer) were committed.
      expect(resumed.stderr).toContain(`session ${id}, branch main: 2 message(s)`);
      // Nothing was answered again: stdout holds the two history lines and nothing else.
      const lines = resumed.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^user +hello there/);
      expect(lines[1]).toMatch(
        /^assistant +(\(This request was cancelled before it was answered\.\)|Hello!)/,
      );
    });
  }
});
