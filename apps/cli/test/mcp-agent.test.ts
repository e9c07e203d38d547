import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { McpClient, registerMcpTools } from '@mh/mcp';
import { Agent, type Message, type ScriptedTurn, scripted, ToolRegistry } from '@mh/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The real third-party filesystem server, installed for @mh/mcp's tests, run without npx.
const fromMcp = createRequire(new URL('../../../packages/mcp/package.json', import.meta.url));
const serverDir = dirname(fromMcp.resolve('@modelcontextprotocol/server-filesystem/package.json'));
const server = join(serverDir, 'dist', 'index.js');

interface ToolResult {
  readonly text: string;
  readonly isError: boolean;
}

/** The tool results of a run, by tool-use id. */
function toolResults(messages: readonly Message[]): Map<string, ToolResult> {
  const results = new Map<string, ToolResult>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const text = block.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      results.set(block.toolUseId, { text, isError: block.isError });
    }
  }
  return results;
}

describe('an agent calling MCP tools through the ordinary executor', { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'mh-mcp-agent-'));
  const client = new McpClient('fs', { command: process.execPath, args: [server, root] });
  const registry = new ToolRegistry();

  beforeAll(async () => {
    writeFileSync(join(root, 'order.txt'), 'order A-77: 3 widgets\n');
    await client.connect();
    await registerMcpTools(registry, client, { onWarning: () => {} });
  });
  afterAll(async () => {
    await client.close();
  });

  async function runWith(
    grants: ('write' | 'exec')[],
    target: string,
  ): Promise<Map<string, ToolResult>> {
    const calls: ScriptedTurn = {
      toolCalls: [
        { id: 'read', name: 'fs__read_text_file', input: { path: join(root, 'order.txt') } },
        {
          id: 'write',
          name: 'fs__write_file',
          input: { path: join(root, target), content: 'shipped' },
        },
        { id: 'bad', name: 'fs__read_text_file', input: { path: 42 } },
      ],
    };
    const agent = new Agent({
      provider: scripted([calls, { text: 'done' }]),
      model: 'scripted',
      tools: registry,
      permissions: { grants },
    });
    const result = await agent.run('Read the order, then mark it shipped.');
    expect(result.status).toBe('completed');
    return toolResults(result.messages);
  }

  it('runs a read-only tool, denies a write tool without --grant exec, and validates locally', async () => {
    expect(registry.get('fs__read_text_file')?.permission).toBe('read');
    expect(registry.get('fs__write_file')?.permission).toBe('exec');
    const results = await runWith([], 'denied.txt');
    expect(results.get('read')?.isError).toBe(false);
    expect(results.get('read')?.text).toContain('order A-77: 3 widgets');
    expect(results.get('read')?.text).toContain('untrusted output of MCP tool fs__read_text_file');
    expect(results.get('write')?.isError).toBe(true);
    expect(results.get('write')?.text).toMatch(/exec/);
    expect(existsSync(join(root, 'denied.txt'))).toBe(false);
    expect(results.get('bad')?.isError).toBe(true);
    expect(results.get('bad')?.text).toContain('path: must be string');
  });

  it('runs the write tool once exec is granted', async () => {
    const results = await runWith(['exec'], 'shipped.txt');
    expect(results.get('write')?.isError).toBe(false);
    expect(readFileSync(join(root, 'shipped.txt'), 'utf8')).toBe('shipped');
  });
});
