import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mh-cassette-'));
  dirs.push(dir);
  return dir;
}

/** Records `prompt` with the fake model into a new cassette; returns its path and the run. */
async function record(prompt: string, extra: string[] = []) {
  const cassette = join(tempDir(), 'run.cassette.jsonl');
  const run = await runCli(['--fake', '--record', cassette, ...extra, prompt]);
  expect(run.code).toBe(0);
  return { cassette, run };
}

describe('mh --record / --replay', () => {
  it('replays a recorded run with no provider and no key, printing the same answer', async () => {
    const { cassette, run } = await record('What is 6*7?');
    expect(run.stdout.trim()).toBe('The answer is 42.');
    expect(run.stderr).toContain(`(recorded to ${cassette})`);
    const lines = readFileSync(cassette, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).type)).toEqual([
      'header',
      'request',
      'tool',
      'request',
    ]);
    expect(JSON.parse(lines[0] ?? '').meta).toMatchObject({ provider: 'fake', model: 'fake' });

    const replay = await runCli(['--replay', cassette, 'What is 6*7?']);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toContain('calculator {"expression":"6*7"}');
    expect(replay.stderr).toContain(`(replayed ${cassette}: no drift)`);
  });

  it('runs read tools again: a file changed since recording is a drift at toolCalls.<id>.result (exit 3)', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.txt'), 'order number A-1234\n');
    const { cassette, run } = await record('Read notes.txt please', ['--root', root]);
    expect(run.stdout).toContain('A-1234');
    const same = await runCli(['--replay', cassette, '--root', root, 'Read notes.txt please']);
    expect([same.code, same.stdout]).toEqual([0, run.stdout]);
    expect(same.stderr).toContain('no drift');
    writeFileSync(join(root, 'notes.txt'), 'order number A-9999\n');
    const replay = await runCli(['--replay', cassette, '--root', root, 'Read notes.txt please']);
    expect(replay.code).toBe(3);
    // The recorded result is still what the model reads, so the answer is the recorded one.
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toMatch(
      /\(read_file\) ran live and returned another result at character \d+: recorded ".*A-1234.*", now ".*A-9999.*"/,
    );
  });

  it('names the system field and exits 3 when the system prompt changed', async () => {
    const { cassette, run } = await record('What is 6*7?');
    const replay = await runCli(['--replay', cassette, '--system', 'other', 'What is 6*7?']);
    expect(replay.code).toBe(3);
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toMatch(/the replay drifted from .* \(2 finding\(s\)\)/);
    expect(replay.stderr).toContain('request 0: system differs at character 0');
    expect(replay.stderr).toContain('(and in 1 later request(s))');
  });

  it('reports the recorded requests a lower --max-turns never asked for', async () => {
    const { cassette } = await record('What is 6*7?');
    const replay = await runCli(['--replay', cassette, '--max-turns', '1', 'What is 6*7?']);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toContain('max-turns');
    expect(replay.stderr).toContain('1 recorded request(s) were never asked for');
  });

  it('fails a request the recording does not have, without a provider to ask', async () => {
    const { cassette } = await record('What is 6*7?');
    const replay = await runCli(['--replay', cassette], 'What is 6*7?\nWhat is 2+2?\n');
    expect(replay.code).toBe(3);
    expect(replay.stdout).toContain('The answer is 42.');
    expect(replay.stderr).toContain('request 2 is not in the recording (2 recorded)');
  });

  it('asks the provider given with --replay for what the recording lacks, and appends it', async () => {
    const { cassette } = await record('What is 6*7?');
    const extended = await runCli(['--fake', '--replay', cassette], 'What is 6*7?\nWhat is 2+2?\n');
    expect(extended.code).toBe(3);
    expect(extended.stdout).toContain('The answer is 4.');
    expect(extended.stderr).toContain('served by fake and recorded');
    const again = await runCli(['--replay', cassette], 'What is 6*7?\nWhat is 2+2?\n');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(extended.stdout);
  });

  it('refuses bad cassette arguments with exit code 2', async () => {
    const { cassette } = await record('Hello');
    const exists = await runCli(['--fake', '--record', cassette, 'Hello']);
    expect([exists.code, exists.stderr]).toEqual([
      2,
      expect.stringContaining('a cassette already exists here'),
    ]);
    const missing = join(tempDir(), 'none.jsonl');
    const absent = await runCli(['--replay', missing, 'Hello']);
    expect([absent.code, absent.stderr]).toEqual([2, expect.stringContaining('no cassette here')]);
    expect(existsSync(missing)).toBe(false);
    const both = await runCli(['--fake', '--record', 'a.jsonl', '--replay', 'b.jsonl', 'Hello']);
    expect([both.code, both.stderr.trim()]).toEqual([
      2,
      'mh: --record and --replay exclude each other',
    ]);
    const newer = join(tempDir(), 'newer.jsonl');
    writeFileSync(
      newer,
      '{"type":"header","format":"mh-cassette","version":9,"createdAt":"2030-01-01T00:00:00.000Z","meta":{}}\n',
    );
    const future = await runCli(['--replay', newer, 'Hello']);
    expect([future.code, future.stderr]).toEqual([
      2,
      expect.stringContaining('cassette format version 9 is newer than this @mh/eval reads (1)'),
    ]);
  });

  it('names the flag, not the library option, in cassette file errors', async () => {
    const { cassette } = await record('Hello');
    const exists = await runCli(['--fake', '--record', cassette, 'Hello']);
    expect(exists.stderr.trim()).toBe(
      `mh: --record ${cassette}: a cassette already exists here; record to a new file or delete this one`,
    );
    const missing = join(tempDir(), 'none.jsonl');
    const absent = await runCli(['--replay', missing, 'Hello']);
    expect(absent.stderr.trim()).toBe(
      `mh: --replay ${missing}: no cassette here (record one with --record ${missing})`,
    );
    const empty = join(tempDir(), 'empty.jsonl');
    writeFileSync(empty, '');
    const blank = await runCli(['--replay', empty, 'Hello']);
    expect([blank.code, blank.stderr.trim()]).toEqual([
      2,
      `mh: --replay ${empty}: the file is empty`,
    ]);
  });

  it('lists --record and --replay in the help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('--record FILE');
    expect(help.stdout).toContain('--replay FILE');
    expect(help.stdout).toContain('3 a replay drifted from its recording');
  });
});
