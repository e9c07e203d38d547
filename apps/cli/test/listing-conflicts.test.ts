import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

function database(): string {
  return join(mkdtempSync(join(tmpdir(), 'mh-listing-')), 'z.db');
}

// --list-sessions and --list-tools list and exit: a prompt or a run flag beside them would be
// dropped without a word, so a script would believe its prompt had run.
describe('mh --list-sessions / --list-tools with run flags', { timeout: 60_000 }, () => {
  it('refuses a prompt with --list-sessions (exit 2, one line naming both) and runs nothing', async () => {
    const db = database();
    await runCli(['--fake', '--db', db, 'first']);
    const run = await runCli(['--db', db, '--list-sessions', '--fake', 'hello']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      '',
      'mh: --list-sessions and a prompt exclude each other (--list-sessions lists the sessions and exits; run the prompt without it)\n',
    ]);
  });

  it('refuses a prompt with --list-tools, and creates no database', async () => {
    const db = database();
    const run = await runCli(['--fake', '--db', db, '--list-tools', 'hello']);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      '',
      'mh: --list-tools and a prompt exclude each other (--list-tools lists the tools and exits; run the prompt without it)\n',
    ]);
    expect(existsSync(db)).toBe(false);
  });

  it('refuses run flags that have nothing to apply to, naming the flag', async () => {
    const db = database();
    const cases: [readonly string[], string][] = [
      [['--list-sessions', '--session', 's-1'], '--session'],
      [['--list-sessions', '--system', 'be brief'], '--system'],
      [['--list-sessions', '--max-turns', '3'], '--max-turns'],
      [['--list-tools', '--timeout-ms', '1000'], '--timeout-ms'],
      [['--list-tools', '--trace'], '--trace'],
      [['--list-tools', '--record', join(tmpdir(), 'never.jsonl')], '--record'],
      [['--list-tools', '--no-compaction'], '--no-compaction'],
      [['--list-sessions', '--list-tools'], '--list-tools'],
    ];
    for (const [flags, named] of cases) {
      const run = await runCli(['--fake', '--db', db, ...flags]);
      const listing = flags[0] ?? '';
      expect([flags, run.code, run.stdout], run.stderr).toEqual([flags, 2, '']);
      expect(run.stderr).toMatch(new RegExp(`^mh: ${listing} and ${named} exclude each other`));
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('still lists with the flags that shape what is listed', async () => {
    const db = database();
    await runCli(['--fake', '--db', db, 'first']);
    const sessions = await runCli(['--fake', '--db', db, '--list-sessions']);
    expect([sessions.code, sessions.stdout]).toEqual([0, expect.stringContaining('first')]);
    const tools = await runCli(['--fake', '--grant', 'write', '--root', tmpdir(), '--list-tools']);
    expect([tools.code, tools.stdout]).toEqual([0, expect.stringContaining('calculator')]);
  });
});
