import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Tool } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, registerMcpTools } from '../src/index.js';
import { tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const serverEntry = join(
  dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);

describe('McpClient against @modelcontextprotocol/server-filesystem', () => {
  const folder = tempDir();
  const client = new McpClient('fs', { command: process.execPath, args: [serverEntry, folder] });
  const tools = new Map<string, Tool>();

  beforeAll(async () => {
    writeFileSync(join(folder, 'hello.txt'), 'hello from the fixture');
    await client.connect();
    await registerMcpTools({ register: (tool) => tools.set(tool.name, tool) }, client, {
      onWarning: () => {},
    });
  });
  afterAll(async () => {
    await client.close();
  });

  it('registers its tools as server__tool', () => {
    expect(tools.has('fs__read_text_file')).toBe(true);
    expect(tools.has('fs__write_file')).toBe(true);
  });

  it('gives read tools READ and the write tool EXEC', () => {
    expect(tools.get('fs__read_text_file')?.permission).toBe('read');
    expect(tools.get('fs__write_file')?.permission).toBe('exec');
  });

  it('reads a file through the registered tool, wrapped as untrusted output', async () => {
    const tool = tools.get('fs__read_text_file') as Tool;
    const input = { path: join(folder, 'hello.txt') };
    expect(tool.schema.parse(input).success).toBe(true);
    const signal = new AbortController().signal;
    const output = await tool.run(input, { signal, callId: 'call-1', attempt: 1 });
    const text = typeof output === 'string' ? output : (output.content[0] as { text: string }).text;
    expect(text).toContain('hello from the fixture');
    expect(text).toContain('[untrusted output of MCP tool fs__read_text_file');
  });

  it('rejects bad arguments locally with a model-readable message', () => {
    const parsed = tools.get('fs__read_text_file')?.schema.parse({ path: 42 });
    expect(parsed).toEqual({ success: false, issues: ['path: must be string'] });
  });
});
