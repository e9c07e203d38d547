import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-history-cut-off-')), 'mh.db');
}

async function onlySessionId(db: string): Promise<string> {
  const listed = await runCli(['--db', db, '--list-sessions']);
  const rows = listed.stdout.trim().split('\n').slice(1);
  expect(rows).toHaveLength(1);
  return rows[0]?.split(/\s+/)[0] ?? '';
}

describe('/history', { timeout: 60_000 }, () => {
  it('marks a partial answer a cancel cut off, and ends a line cut at 100 characters with …', async () => {
    const db = database();
    const prompt = `hello ${'there '.repeat(30)}`.trim();
    const { child, output, done } = startCli(['--fake', '--db', db, '--fake-delay-ms', '200']);
    child.stdin.write(`${prompt}\n`);
    await waitFor(
      () => output.stdout.length > 0,
      10_000,
      () => output.stderr,
    );
    child.kill('SIGINT');
    await waitFor(
      () => output.stderr.includes('(cancelled)'),
      10_000,
      () => output.stderr,
    );
    child.stdin.end();
    await done;
    const id = await onlySessionId(db);
    const resumed = await runCli(['--fake', '--db', db, '--session', id], '/history\n');
    const lines = resumed.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`user      ${prompt.slice(0, 99)}…`);
    expect(lines[1]).toMatch(/^assistant +Hello!.* \[cut off\]$/);
    expect(lines[1]).not.toContain('Ask me some arithmetic');
  });
});
