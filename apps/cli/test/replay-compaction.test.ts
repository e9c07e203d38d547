import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Six files of 120 order rows: reading them fills a small context window. */
function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'mh-replay-compaction-'));
  dirs.push(root);
  for (let n = 1; n <= 4; n++) {
    const rows = Array.from(
      { length: 120 },
      (_, row) =>
        `row ${row}: order ORD-${n}${String(row).padStart(3, '0')} status=shipped region=eu`,
    );
    writeFileSync(join(root, `orders-${n}.txt`), rows.join('\n'));
  }
  return root;
}

const PROMPTS = `${[1, 2, 3, 4].map((n) => `read the file orders-${n}.txt`).join('\n')}\nWhat is 6*7?\n`;

describe('mh --replay with another --context-window', () => {
  it('reports the compaction that moved, naming where it was recorded and where it happens now', async () => {
    const root = workspace();
    const cassette = join(root, 'run.cassette.jsonl');
    const recorded = await runCli(
      ['--fake', '--root', root, '--context-window', '4000', '--record', cassette],
      PROMPTS,
    );
    expect(recorded.code).toBe(0);
    expect(recorded.stderr).toContain('(compaction: summarised');
    const replay = await runCli(
      ['--replay', cassette, '--root', root, '--context-window', '5000'],
      PROMPTS,
    );
    expect(replay.code).toBe(3);
    const findings = replay.stderr.split('mh: the replay drifted')[1]?.split('\n').slice(1) ?? [];
    // The first finding is the compaction, not "system differs: recorded 'You compress…'".
    expect(findings[0]).toMatch(
      /request 3: compaction 1 did not happen: recorded as request 3, after 3 model call\(s\); now model call 4 \(request 3\) comes without it/,
    );
    expect(replay.stderr).toMatch(
      /compaction 1 moved: recorded as request 3, after 3 model call\(s\); now request \d+, after \d+ model call\(s\)/,
    );
    expect(replay.stderr).not.toContain('system differs');
    expect(replay.stderr).not.toMatch(/tools differs/);
  });

  it('replays clean at the window it was recorded at', async () => {
    const root = workspace();
    const cassette = join(root, 'run.cassette.jsonl');
    const args = ['--root', root, '--context-window', '4000'];
    expect((await runCli(['--fake', ...args, '--record', cassette], PROMPTS)).code).toBe(0);
    const replay = await runCli(['--replay', cassette, ...args], PROMPTS);
    expect(replay.stderr).toContain('no drift');
    expect(replay.code).toBe(0);
  });
});
