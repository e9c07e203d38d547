import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'mh-cli-compaction-'));
  for (let n = 1; n <= 6; n++) {
    const rows = Array.from(
      { length: 120 },
      (_, row) =>
        `row ${row}: order ORD-${n}${String(row).padStart(3, '0')} status=shipped region=eu`,
    );
    writeFileSync(join(root, `orders-${n}.txt`), rows.join('\n'));
  }
  return root;
}

describe('mh --context-window', () => {
  it('compacts offline with --fake and prints one line per compaction; the conversation goes on', async () => {
    const root = workspace();
    const prompts = [1, 2, 3, 4, 5, 6].map((n) => `read the file orders-${n}.txt`).join('\n');
    const run = await runCli(
      ['--fake', '--context-window', '4000', '--root', root],
      `${prompts}\nWhat is 6*7?\n`,
    );
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.includes('(compaction'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.some((line) => /trimmed \d+ tool result|summarised \d+ message/.test(line))).toBe(
      true,
    );
    for (const line of lines) expect(line).toMatch(/\d+ → \d+ tokens|skipped/);
    expect(run.stdout).toContain('42');
  });

  it('never compacts with --no-compaction', async () => {
    const root = workspace();
    const prompts = [1, 2, 3].map((n) => `read the file orders-${n}.txt`).join('\n');
    const run = await runCli(['--fake', '--no-compaction', '--root', root], `${prompts}\n`);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('(compaction');
  });

  it('refuses --context-window with --no-compaction: the window would do nothing (exit 2)', async () => {
    const run = await runCli(['--fake', '--context-window', '4000', '--no-compaction', 'hi']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      'mh: --context-window and --no-compaction exclude each other: the window only sets when compaction starts',
    ]);
  });

  it('rejects a window above 10 million tokens, naming the flag (exit 2)', async () => {
    const run = await runCli(['--fake', '--context-window', '99999999999999999999', 'hi']);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      'mh: --context-window must be at most 10000000 tokens (no model has a larger window), got 99999999999999999999',
    ]);
    const largest = await runCli(['--fake', '--context-window', '10000000', 'hi']);
    expect(largest.code).toBe(0);
  });

  it('rejects a window that is not a number or too small, naming the flag (exit 2)', async () => {
    for (const value of ['ten', '0', '500']) {
      const run = await runCli(['--fake', '--context-window', value, 'hi']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('context-window');
    }
  });
});
