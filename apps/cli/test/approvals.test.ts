import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The real third-party filesystem server of @mh/mcp's tests: its write_file is an `exec` tool,
// which the fake model calls when the prompt names it (`Use fs__write_file with path=…`).
const fromMcp = createRequire(new URL('../../../packages/mcp/package.json', import.meta.url));
const serverDir = dirname(fromMcp.resolve('@modelcontextprotocol/server-filesystem/package.json'));
const server = join(serverDir, 'dist', 'index.js');

function setup(): { root: string; db: string; out: string; mcp: string[]; prompt: string } {
  const root = mkdtempSync(join(tmpdir(), 'mh-approvals-'));
  const out = join(root, 'out.txt');
  return {
    root,
    db: join(root, 'sessions.db'),
    out,
    mcp: ['--fake', '--mcp', `fs=node ${server} ${root}`],
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

describe('mh approvals without a terminal', { timeout: 60_000 }, () => {
  it('ends a one-shot run with an ungranted write waiting (exit 5), and --approve runs it once', async () => {
    const { db, out, mcp, prompt } = setup();
    const first = await runCli([...mcp, '--db', db, prompt]);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('1 tool call(s) wait for approval');
    expect(first.stderr).toMatch(
      /fs__write_file \{"path":.*\(fs__write_file needs the exec permission\)/,
    );
    expect(existsSync(out)).toBe(false);
    const { session, callId } = waiting(first.stderr);

    const wrong = await runCli([...mcp, '--db', db, '--session', session, '--approve', 'nope']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`mh: --approve nope: no call of session ${session} waits`);
    expect(existsSync(out)).toBe(false);

    const approved = await runCli([...mcp, '--db', db, '--session', session, '--approve', callId]);
    expect(approved.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('hello');
    expect(approved.stdout).toContain('Successfully wrote');
    expect(approved.stderr).toContain(
      '(resumed a pending turn: 1 call(s) run, 1 decided by a person',
    );

    const again = await runCli([...mcp, '--db', db, '--session', session, '--approve', callId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--approve ${callId}`);
  });

  it('--deny ID=MESSAGE gives the model the message and never runs the call', async () => {
    const { db, out, mcp, prompt } = setup();
    const { session, callId } = waiting((await runCli([...mcp, '--db', db, prompt])).stderr);
    const denied = await runCli([
      ...mcp,
      '--db',
      db,
      '--session',
      session,
      '--deny',
      `${callId}=not that file`,
    ]);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain('the user denied this call: not that file');
    expect(existsSync(out)).toBe(false);
  });

  it('shows the waiting call again when the session resumes without an answer', async () => {
    const { db, out, mcp, prompt } = setup();
    const { session, callId } = waiting((await runCli([...mcp, '--db', db, prompt])).stderr);
    const still = await runCli([...mcp, '--db', db, '--session', session], '');
    expect(still.code).toBe(5);
    expect(still.stderr).toContain(`--approve ${callId}`);
    expect(existsSync(out)).toBe(false);
  });

  it('without --db, says to grant the permission (exit 5); --grant runs it at once', async () => {
    const { out, mcp, prompt } = setup();
    const first = await runCli([...mcp, prompt]);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('run again with --grant exec');
    expect(existsSync(out)).toBe(false);
    const granted = await runCli([...mcp, '--grant', 'exec', prompt]);
    expect(granted.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('hello');
  });

  it('refuses --approve without --session (exit 2)', async () => {
    const run = await runCli(['--fake', '--approve', 'c1', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--approve c1: needs --db PATH --session ID');
  });
});
