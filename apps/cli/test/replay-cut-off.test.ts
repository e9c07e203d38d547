import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, waitFor } from './run-cli.js';

// A recording whose run was cancelled or timed out ends in an `abandoned` exchange. Its replay
// must still say something: the drift of the request, and either the same end (when the replay
// is cut off at the same point) or a drift finding, exit 3 (when nothing cuts it off).

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cassettePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mh-cut-off-'));
  dirs.push(dir);
  return join(dir, 'run.cassette.jsonl');
}

/** The outcome of the cassette's one request. */
function outcome(cassette: string): unknown {
  return JSON.parse(readFileSync(cassette, 'utf8').trimEnd().split('\n')[1] ?? '').outcome;
}

/** Records `hello` with a slow fake model and a timeout that cuts the answer off. */
async function recordTimedOut() {
  const cassette = cassettePath();
  const args = ['--fake', '--fake-delay-ms', '200', '--timeout-ms', '700'];
  const run = await runCli([...args, '--record', cassette, 'hello']);
  expect(run.stderr).toContain('Guard timeout tripped');
  expect(outcome(cassette)).toBe('abandoned');
  return { cassette, run };
}

const CUT_OFF = 'the recording was cut off here';

describe('mh --replay of a cut-off recording', () => {
  it('reports a changed system prompt as drift (exit 3), with the cut-off', async () => {
    const { cassette } = await recordTimedOut();
    const replay = await runCli(['--replay', cassette, '--system', 'zzz', 'hello']);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toContain(`mh: the replay drifted from ${cassette}`);
    expect(replay.stderr).toMatch(/request 0: system differs/);
    expect(replay.stderr).toContain(CUT_OFF);
  });

  it('unchanged and not cut off itself: a drift finding naming the cut-off, exit 3', async () => {
    const { cassette } = await recordTimedOut();
    const replay = await runCli(['--replay', cassette, 'hello']);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toContain(CUT_OFF);
    expect(replay.stderr).not.toContain('system differs');
  });

  it('unchanged and timed out at the same point: ends as the recording did, no drift', async () => {
    const { cassette, run } = await recordTimedOut();
    const replay = await runCli(['--replay', cassette, '--timeout-ms', '700', 'hello']);
    expect(replay.code).toBe(run.code);
    expect(replay.stdout).toBe(run.stdout);
    expect(replay.stderr).toContain('Guard timeout tripped');
    expect(replay.stderr).toContain(`(replayed ${cassette}: no drift)`);
  });

  it('a recording stopped with Ctrl-C replays to a drift finding, never a silent exit 0', async () => {
    const cassette = cassettePath();
    const recording = startCli(['--fake', '--fake-delay-ms', '200', '--record', cassette, 'hi']);
    recording.child.stdin.end();
    await waitFor(() => recording.output.stdout.length > 0);
    recording.child.kill('SIGINT');
    await recording.done;
    expect(outcome(cassette)).toBe('abandoned');
    const replay = await runCli(['--replay', cassette, 'something else entirely']);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toMatch(/messages.* differs/);
    expect(replay.stderr).toContain(CUT_OFF);
  });
});
