import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The stdio server of @mh/mcp's tests: its `elicit` tool asks the client for a name
// (elicitation/create) and greets it.
const fakeServer = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/fake-server.mjs', import.meta.url),
);

describe("mh and an MCP server's elicitation", { timeout: 60_000 }, () => {
  it('one-shot: lists the question (exit 5); --answer-json answers it and the call runs again, greeting once', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mh-elicit-')), 'sessions.db');
    const tools = ['--fake', '--mcp', `fake=node ${fakeServer} ok`, '--grant', 'exec'];
    const first = await runCli([...tools, '--db', db, 'Use fake__elicit with who=ada']);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('1 tool call(s) wait for you');
    expect(first.stderr).toContain('asks: Name to greet for ada?');
    const found = first.stderr.match(/--session (\S+) --answer (\S+)=TEXT/);
    const [, session, callId] = found ?? [];
    expect(session && callId, first.stderr).toBeTruthy();
    const answered = await runCli([
      ...tools,
      '--db',
      db,
      '--session',
      String(session),
      '--answer-json',
      `${callId}={"name":"Ada"}`,
    ]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain('hello Ada');
    // Nothing waits any more: answering again is refused, naming the flag.
    const again = await runCli([
      ...tools,
      '--db',
      db,
      '--session',
      String(session),
      '--answer',
      `${callId}=Bob`,
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--answer ${callId}`);
  });

  it('refuses an answer the requested schema does not take, naming the flag', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mh-elicit-')), 'sessions.db');
    const tools = ['--fake', '--mcp', `fake=node ${fakeServer} ok`, '--grant', 'exec'];
    const first = await runCli([...tools, '--db', db, 'Use fake__elicit with who=ada']);
    const [, session, callId] = first.stderr.match(/--session (\S+) --answer (\S+)=TEXT/) ?? [];
    const wrong = await runCli([
      ...tools,
      '--db',
      db,
      '--session',
      String(session),
      '--answer',
      `${callId}=Ada`,
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`--answer ${callId}`);
    expect(wrong.stderr).toContain('expected object');
  });
});
