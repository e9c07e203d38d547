import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The real third-party filesystem server, installed for @mh/mcp's tests, run without npx.
const fromMcp = createRequire(new URL('../../../packages/mcp/package.json', import.meta.url));
const serverDir = dirname(fromMcp.resolve('@modelcontextprotocol/server-filesystem/package.json'));
const server = join(serverDir, 'dist', 'index.js');

// The misbehaving stdio server of @mh/mcp's tests (paged lists, a schema that does not compile).
const fakeServer = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/fake-server.mjs', import.meta.url),
);

// The streamable HTTP fixture of @mh/mcp (the official server library behind node:http).
const httpServer = fileURLToPath(
  new URL('../../../packages/mcp/test/servers/http-server.mjs', import.meta.url),
);

describe('mh --mcp', { timeout: 60_000 }, () => {
  it('lists the server tools with least-privilege permissions', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-mcp-'));
    const run = await runCli(['--mcp', `fs=node ${server} ${root}`, '--list-tools']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fs__read_text_file\s+read\s+fs\s+allowed/);
    expect(run.stdout).toMatch(/fs__write_file\s+exec\s+fs\s+needs --grant exec/);
    expect(run.stdout).toMatch(/^calculator\s+read\s+local/m);
  });

  it('lets the agent call a server tool like a local one, its output marked untrusted', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-mcp-'));
    writeFileSync(join(root, 'note.txt'), 'order A-77\n');
    const prompt = `Use fs__read_text_file with path=${join(root, 'note.txt')}`;
    const run = await runCli(['--fake', '--mcp', `fs=node ${server} ${root}`, prompt]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('fs__read_text_file');
    expect(run.stdout).toContain('order A-77');
    expect(run.stdout).toContain('untrusted output of MCP tool fs__read_text_file');
  });

  it('replays a recorded MCP write without running it, and exits 3 once its grant is gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mh-mcp-drift-'));
    const out = join(root, 'out.txt');
    const cassette = join(root, 'write.cassette.jsonl');
    const prompt = `Use fs__write_file with path=${out} content=hello`;
    const mcp = ['--mcp', `fs=node ${server} ${root}`];
    const recorded = await runCli([
      '--fake',
      ...mcp,
      '--grant',
      'exec',
      '--record',
      cassette,
      prompt,
    ]);
    expect(recorded.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    rmSync(out);

    // Same grant: the recorded result is served, the write is not run again.
    const same = await runCli([...mcp, '--grant', 'exec', '--replay', cassette, prompt]);
    expect([same.code, same.stdout]).toEqual([0, recorded.stdout]);
    expect(same.stderr).toContain('no drift');
    expect(existsSync(out)).toBe(false);

    // Without --grant exec the same call now waits for approval, as in a live run: the replay
    // stops there, and the recorded call and request it never made are drift, named, exit 3.
    const waiting = await runCli([...mcp, '--replay', cassette, prompt]);
    expect(waiting.code).toBe(3);
    expect(waiting.stderr).toContain('1 tool call(s) wait for approval');
    expect(waiting.stderr).toMatch(/1 recorded tool call\(s\) were never made: \["toolu_/);
    expect(existsSync(out)).toBe(false);
  });

  it('rejects a malformed --mcp value with exit code 2', async () => {
    const run = await runCli(['--fake', '--mcp', 'no-equals-sign', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--mcp expects NAME=COMMAND');
  });

  it("rejects a NAME with '__' or a trailing '_' (tool names would be ambiguous), exit code 2", async () => {
    for (const name of ['a__b', 'a_']) {
      const run = await runCli(['--mcp', `${name}=node -e 0`, '--list-tools']);
      expect([run.code, run.stderr.trim()]).toEqual([
        2,
        `mh: --mcp ${name}: NAME may not contain '__' or end with '_' (tools are named NAME__TOOL: a__b__c could be server a, tool b__c)`,
      ]);
    }
    // A single '_' inside a name is fine.
    const ok = await runCli(['--mcp', `my_fs=node ${server} ${tmpdir()}`, '--list-tools']);
    expect(ok.stdout).toMatch(/^my_fs__read_text_file\s+read\s+my_fs/m);
  });

  it("prints the client's and the registry's warnings as mh lines, each naming its server once", async () => {
    const paged = await runCli(['--mcp', `fk=node ${fakeServer} paged`, '--list-tools']);
    expect(paged.code).toBe(0);
    expect(paged.stderr).toContain('mh: MCP server fk: tools/list repeated cursor');
    expect(paged.stderr).not.toContain('(node:');
    const ok = await runCli(['--mcp', `fk=node ${fakeServer} ok`, '--list-tools']);
    expect(ok.stderr).toContain('mh: MCP server fk: dropped tool bad_schema');
    expect(ok.stderr).not.toContain('mh: fk: MCP server fk');
  });

  it('gives up on a server that never answers after --mcp-timeout-ms, naming it (exit 1)', async () => {
    const silent = join(mkdtempSync(join(tmpdir(), 'mh-mcp-silent-')), 'silent.mjs');
    writeFileSync(silent, 'setInterval(() => {}, 1000);\n');
    const started = Date.now();
    const run = await runCli([
      '--mcp',
      `mute=node ${silent}`,
      '--mcp-timeout-ms',
      '700',
      '--list-tools',
    ]);
    const elapsed = Date.now() - started;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/mute/);
    expect(run.stderr).toMatch(/700 ms/);
    // The 30 s default would still be waiting; the process start alone takes well under 10 s.
    expect(elapsed).toBeLessThan(10_000);
  });

  it('rejects a --mcp-timeout-ms that is not a positive integer, naming the flag (exit 2)', async () => {
    for (const value of ['0', '-5', 'soon', '1.5']) {
      const run = await runCli(['--mcp', 'x=node -e 0', '--mcp-timeout-ms', value, '--list-tools']);
      expect(run.code, value).toBe(2);
      expect(run.stderr).toContain('--mcp-timeout-ms');
    }
    const alone = await runCli(['--fake', '--mcp-timeout-ms', '500', 'hi']);
    expect([alone.code, alone.stderr.trim()]).toEqual([
      2,
      'mh: --mcp-timeout-ms needs an --mcp server to apply to',
    ]);
  });

  it('rejects a server NAME given twice with exit code 2, before starting any server', async () => {
    const run = await runCli([
      '--mcp',
      'fs=node -e 0',
      '--mcp',
      'fs=http://127.0.0.1:9/mcp',
      '--list-tools',
    ]);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      'mh: --mcp fs: the name is given twice; give each server its own NAME',
    ]);
  });

  it('reaches a streamable HTTP server given as NAME=URL and lets the agent call it', async () => {
    const child = spawn(process.execPath, [httpServer], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(String(chunk)).port));
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      const listed = await runCli(['--mcp', `api=${url}`, '--list-tools']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/api__echo\s+read\s+api\s+allowed/);
      expect(listed.stdout).toMatch(/api__write_note\s+exec\s+api\s+needs --grant exec/);
      const run = await runCli([
        '--fake',
        '--mcp',
        `api=${url}`,
        'Use api__echo with text=hello-http',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('hello-http');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
