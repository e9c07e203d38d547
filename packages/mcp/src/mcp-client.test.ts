import { McpProtocolError } from '@mh/core';
import { fieldOf } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';
import { McpClient } from './mcp-client.js';

describe('McpClient construction', () => {
  it('tells a URL from a command', () => {
    expect(new McpClient('a', { url: 'http://127.0.0.1:1/mcp' }).transport).toBe('http');
    expect(new McpClient('a', { command: 'server' }).transport).toBe('stdio');
  });

  it('rejects bad input with ConfigError naming the field', () => {
    expect(fieldOf(() => new McpClient('', { command: 'x' }))).toBe('name');
    expect(fieldOf(() => new McpClient('a', { url: 'ftp://host/mcp' }))).toBe('params.url');
    expect(fieldOf(() => new McpClient('a', { url: 'not a url' }))).toBe('params.url');
    expect(fieldOf(() => new McpClient('a', { url: 'http://h/', command: 'x' } as never))).toBe(
      'params.command',
    );
    expect(
      fieldOf(
        () => new McpClient('a', { url: 'http://h/', headers: { a: 1 as unknown as string } }),
      ),
    ).toBe('params.headers.a');
    expect(fieldOf(() => new McpClient('a', { command: '' }))).toBe('params.command');
    expect(fieldOf(() => new McpClient('a', { command: 'x' }, { callTimeoutMs: -1 }))).toBe(
      'options.callTimeoutMs',
    );
    expect(fieldOf(() => new McpClient('a', { command: 'x' }, { bogus: 1 } as never))).toBe(
      'options.bogus',
    );
  });

  it('rejects malformed stdio args, env and cwd with ConfigError naming the field', () => {
    const stdio = (params: object): string | undefined =>
      fieldOf(() => new McpClient('a', { command: 'x', ...params } as never));
    expect(stdio({ args: 'a b' })).toBe('params.args');
    expect(stdio({ args: ['ok', 1] })).toBe('params.args[1]');
    expect(stdio({ env: 'A=1' })).toBe('params.env');
    expect(stdio({ env: { A: 1 } })).toBe('params.env.A');
    expect(stdio({ cwd: 5 })).toBe('params.cwd');
    expect(stdio({ args: ['ok'], env: { A: '1' }, cwd: '.' })).toBeUndefined();
  });

  it("rejects a name whose tool names would be ambiguous: '__' or a final '_', as sanitised", () => {
    for (const name of ['a__b', 'a_', 'a..b', 'a.'])
      expect(fieldOf(() => new McpClient(name, { command: 'x' }))).toBe('name');
    expect(() => new McpClient('a__b', { command: 'x' })).toThrow(
      "name: expected no '__' and no final '_' (tools are named NAME__TOOL), got \"a__b\"",
    );
    expect(new McpClient('my_fs.v2', { command: 'x' }).name).toBe('my_fs.v2');
  });

  it('refuses calls before connect with McpProtocolError', async () => {
    const client = new McpClient('a', { url: 'http://127.0.0.1:1/mcp' });
    await expect(client.listTools()).rejects.toSatisfy(McpProtocolError.isInstance);
    await expect(client.callTool('x', {})).rejects.toSatisfy(McpProtocolError.isInstance);
  });
});
