import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The real filesystem MCP server: its write_file is an `exec` tool the fake model calls when the
// prompt names it, so an ungranted call waits for approval.
const fromMcp = createRequire(new URL('../../../packages/mcp/package.json', import.meta.url));
const serverDir = dirname(fromMcp.resolve('@modelcontextprotocol/server-filesystem/package.json'));
const server = join(serverDir, 'dist', 'index.js');
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'mh-record-approvals-'));
  dirs.push(root);
  const out = join(root, 'out.txt');
  return {
    root,
    out,
    cassette: join(root, 'run.cassette.jsonl'),
    db: (name: string): string => join(root, `${name}.db`),
    mcp: ['--mcp', `fs=node ${server} ${root}`],
    prompt: `Use fs__write_file with path=${out} content=hello`,
  };
}

/** The session id and the waiting call's id that mh printed. */
function waiting(stderr: string): { session: string; callId: string } {
  const session = stderr.match(/--session (\S+) --approve/)?.[1];
  const callId = stderr.match(/--approve (\S+)/)?.[1];
  if (!session || !callId) throw new Error(`no waiting call in:\n${stderr}`);
  return { session, callId };
}

/** The cassette's lines, parsed. */
function lines(cassette: string): Record<string, unknown>[] {
  return readFileSync(cassette, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Records the interrupted run and its `--approve` resume into one cassette. */
async function recordApproved(s: ReturnType<typeof setup>) {
  const db = s.db('recorded');
  const first = await runCli(['--fake', ...s.mcp, '--record', s.cassette, '--db', db, s.prompt]);
  expect(first.code).toBe(5);
  const { session, callId } = waiting(first.stderr);
  const approved = await runCli([
    '--fake',
    ...s.mcp,
    '--record',
    s.cassette,
    '--db',
    db,
    '--session',
    session,
    '--approve',
    callId,
  ]);
  return { first, approved, callId };
}

describe('mh --record / --replay with calls waiting for approval', { timeout: 90_000 }, () => {
  it('records an ungranted write as waiting (exit 5), not as denied', async () => {
    const s = setup();
    const run = await runCli([
      '--fake',
      ...s.mcp,
      '--record',
      s.cassette,
      '--db',
      s.db('a'),
      s.prompt,
    ]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('1 tool call(s) wait for approval');
    expect(run.stderr).toContain(`(recorded to ${s.cassette})`);
    // The resume it prints records into the same cassette.
    expect(run.stderr).toContain(`answer with: mh --record ${s.cassette} --db `);
    expect(existsSync(s.out)).toBe(false);
    // Nothing ran, so no tool outcome (no denial) is in the recording.
    expect(lines(s.cassette).filter((line) => line.type === 'tool')).toEqual([]);
  });

  it('appends the --approve resume to the cassette; the write runs once', async () => {
    const s = setup();
    const { approved, callId } = await recordApproved(s);
    expect(approved.code).toBe(0);
    expect(readFileSync(s.out, 'utf8')).toBe('hello');
    expect(approved.stderr).toContain(`(recorded to ${s.cassette})`);
    const recorded = lines(s.cassette);
    expect(recorded.filter((line) => line.type === 'header')).toHaveLength(1);
    const tool = recorded.find((line) => line.type === 'tool');
    expect(tool).toMatchObject({
      case: `mh resume ${callId}`,
      call: { id: callId, name: 'fs__write_file' },
      outcome: { status: 'ok' },
    });
  });

  it('replays both runs the same way: interrupted on the same call, then the approved answer', async () => {
    const s = setup();
    const { first, approved, callId } = await recordApproved(s);
    rmSync(s.out);
    const db = s.db('replayed');
    const replayFirst = await runCli([...s.mcp, '--replay', s.cassette, '--db', db, s.prompt]);
    expect(replayFirst.code).toBe(5);
    expect(replayFirst.stdout).toBe(first.stdout);
    expect(replayFirst.stderr).toContain('no drift');
    expect(replayFirst.stderr).toContain(`answer with: mh --replay ${s.cassette} --db `);
    const { session } = waiting(replayFirst.stderr);
    expect(waiting(replayFirst.stderr).callId).toBe(callId);
    const replayApproved = await runCli([
      ...s.mcp,
      '--replay',
      s.cassette,
      '--db',
      db,
      '--session',
      session,
      '--approve',
      callId,
    ]);
    expect(replayApproved.code).toBe(0);
    expect(replayApproved.stdout).toBe(approved.stdout);
    expect(replayApproved.stderr).toContain(`(replayed ${s.cassette}: no drift)`);
    // The write is served from the recording, never run again.
    expect(existsSync(s.out)).toBe(false);
  });

  it('reports drift (exit 3) when the replay denies what the recording approved', async () => {
    const s = setup();
    const { callId } = await recordApproved(s);
    rmSync(s.out);
    const db = s.db('replayed');
    const { session } = waiting(
      (await runCli([...s.mcp, '--replay', s.cassette, '--db', db, s.prompt])).stderr,
    );
    const denied = await runCli([
      ...s.mcp,
      '--replay',
      s.cassette,
      '--db',
      db,
      '--session',
      session,
      '--deny',
      `${callId}=not now`,
    ]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('the replay drifted');
    expect(existsSync(s.out)).toBe(false);
  });

  it('refuses a replayed decision the recording has no resume for (exit 2)', async () => {
    const s = setup();
    await recordApproved(s);
    const db = s.db('replayed');
    const { session } = waiting(
      (await runCli([...s.mcp, '--replay', s.cassette, '--db', db, s.prompt])).stderr,
    );
    const other = await runCli([
      ...s.mcp,
      '--replay',
      s.cassette,
      '--db',
      db,
      '--session',
      session,
      '--approve',
      'toolu_other',
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      `mh: --replay ${s.cassette}: the recording has no resume deciding toolu_other`,
    );
  });

  it('still replays a cassette recorded when mh denied ungranted calls', async () => {
    const s = setup();
    // Recorded by mh before record/replay interrupted: `mh --fake --mcp fs=… --record FILE
    // 'Use fs__write_file with path=/tmp/mh-fixture-root/out.txt content=hello'` (no --grant).
    const old = join(fixtures, 'denied-write.cassette.jsonl');
    const replay = await runCli([
      ...s.mcp,
      '--replay',
      old,
      'Use fs__write_file with path=/tmp/mh-fixture-root/out.txt content=hello',
    ]);
    // The recorded denial is served: the run does not stop to wait, and every recorded call is used.
    expect(replay.code).toBe(0);
    expect(replay.stderr).not.toContain('wait for approval');
    expect(replay.stderr).toContain("Permission denied: fs__write_file needs 'exec' permission");
    expect(replay.stderr).toContain('no drift');
  });
});
