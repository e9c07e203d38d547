import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAIN, runCli, waitFor } from './run-cli.js';

// util-linux `script` gives the CLI a real pseudo-terminal, as at a person's terminal.
const hasScript = spawnSync('script', ['--version']).status === 0;

// The stdio server of @mh/mcp's tests: its `elicit` tool asks the client for a name.
const fakeServer = new URL('../../../packages/mcp/test/servers/fake-server.mjs', import.meta.url)
  .pathname;

// The filesystem MCP server: its write_file is an `exec` tool the fake model calls when named.
const fromMcp = createRequire(new URL('../../../packages/mcp/package.json', import.meta.url));
const serverDir = dirname(fromMcp.resolve('@modelcontextprotocol/server-filesystem/package.json'));
const server = join(serverDir, 'dist', 'index.js');

/** Starts mh with `args` in a pseudo-terminal; `screen()` is everything it printed. */
function startInTerminal(args: readonly string[]): {
  type: (text: string) => void;
  screen: () => string;
  exited: Promise<number | null>;
} {
  const command = [process.execPath, MAIN, ...args].map((word) => JSON.stringify(word)).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TERM: 'dumb',
      NO_COLOR: '1',
    },
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
  });
  return {
    type: (text) => child.stdin.write(text),
    screen: () => screen,
    exited: new Promise((resolve) => child.on('close', resolve)),
  };
}

describe.skipIf(!hasScript)('mh approvals in a pseudo-terminal', { timeout: 60_000 }, () => {
  it('asks before an ungranted write; a(lways) allows that tool for the rest of the session', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-approvals-pty-'));
    const mh = startInTerminal(['--fake', '--mcp', `fs=node ${server} ${root}`]);
    await waitFor(() => mh.screen().includes('> '), 20_000, mh.screen);
    mh.type(`Use fs__write_file with path=${join(root, 'a.txt')} content=one\r`);
    await waitFor(() => mh.screen().includes('[y/N/a(lways)]'), 20_000, mh.screen);
    expect(mh.screen()).toContain('allow fs__write_file {"path":');
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
    mh.type('a\r');
    await waitFor(() => existsSync(join(root, 'a.txt')), 20_000, mh.screen);
    mh.type(`Use fs__write_file with path=${join(root, 'b.txt')} content=two\r`);
    // The MCP server writes the file before mh's note has crossed the terminal: wait for both.
    await waitFor(
      () =>
        existsSync(join(root, 'b.txt')) && mh.screen().includes('always allowed in this session'),
      20_000,
      mh.screen,
    );
    mh.type(`Use fs__write_file with path=${join(root, 'c.txt')} content=three\r`);
    await waitFor(
      () => mh.screen().includes('(allowed fs__write_file {"path":"'),
      20_000,
      mh.screen,
    );
    mh.type('/exit\r');
    expect(await mh.exited).toBe(0);
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('two');
  });

  it('asks again about a call left waiting in a session, and N refuses it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-approvals-pty-'));
    const out = join(root, 'out.txt');
    const db = join(root, 'sessions.db');
    const flags = ['--fake', '--mcp', `fs=node ${server} ${root}`, '--db', db];
    const first = await runCli([...flags, `Use fs__write_file with path=${out} content=hi`]);
    expect(first.code).toBe(5);
    const session = first.stderr.match(/--session (\S+) --approve/)?.[1] ?? '';
    const mh = startInTerminal([...flags, '--session', session]);
    await waitFor(() => mh.screen().includes('[y/N/a(lways)]'), 20_000, mh.screen);
    mh.type('n\r');
    await waitFor(() => mh.screen().includes('the user denied this call'), 20_000, mh.screen);
    await waitFor(() => mh.screen().includes('> '), 20_000, mh.screen);
    mh.type('/exit\r');
    expect(await mh.exited).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it("asks an MCP server's question at the terminal and resumes with the typed answer", async () => {
    const mh = startInTerminal([
      '--fake',
      '--mcp',
      `fake=node ${fakeServer} ok`,
      '--grant',
      'exec',
    ]);
    await waitFor(() => mh.screen().includes('> '), 20_000, mh.screen);
    mh.type('Use fake__elicit with who=ada\r');
    await waitFor(() => mh.screen().includes('asks: Name to greet for ada?'), 20_000, mh.screen);
    mh.type('{"name":"Ada"}\r');
    await waitFor(() => mh.screen().includes('hello Ada'), 20_000, mh.screen);
    mh.type('/exit\r');
    expect(await mh.exited).toBe(0);
  });
});
