import type { Tool } from '@mh/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type McpClient,
  type McpToolsChange,
  type RegisterMcpToolsOptions,
  registerMcpTools,
  type ToolSink,
} from '../src/index.js';
import { fakeClient } from './helpers.js';

const open: McpClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

interface Setup {
  client: McpClient;
  tools: Map<string, Tool>;
  warnings: string[];
  nextChange: () => Promise<McpToolsChange>;
}

/** A fake server whose tools are registered into a map-backed sink. */
async function setup(options: RegisterMcpToolsOptions = {}, canUnregister = true): Promise<Setup> {
  const warnings: string[] = [];
  const { client } = fakeClient('ok', { onWarning: (message) => warnings.push(message) });
  open.push(client);
  await client.connect();
  const tools = new Map<string, Tool>();
  const sink: ToolSink = {
    register: (tool) => tools.set(tool.name, tool),
    ...(canUnregister ? { unregister: (name: string) => tools.delete(name) } : {}),
  };
  const changes: McpToolsChange[] = [];
  const waiting: ((change: McpToolsChange) => void)[] = [];
  await registerMcpTools(sink, client, {
    onWarning: (message) => warnings.push(message),
    onRefresh: (change) => {
      const resolve = waiting.shift();
      if (resolve) resolve(change);
      else changes.push(change);
    },
    ...options,
  });
  const nextChange = (): Promise<McpToolsChange> => {
    const ready = changes.shift();
    return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
  };
  return { client, tools, warnings, nextChange };
}

function run(tool: Tool | undefined, input: unknown): ReturnType<Tool['run']> {
  if (!tool) throw new Error('tool missing');
  return tool.run(input, { signal: new AbortController().signal, callId: 'c1', attempt: 1 });
}

describe('registerMcpTools follows notifications/tools/list_changed', () => {
  it('adds, removes and recompiles tools, re-deriving permissions, after paging the new list', async () => {
    const { client, tools, warnings, nextChange } = await setup();
    expect(tools.has('fake__add')).toBe(true);
    expect(tools.get('fake__env')?.permission).toBe('exec');
    expect(tools.get('fake__echo')?.schema.parse({ text: 'hi' }).success).toBe(true);

    await client.callTool('mutate', {});
    const change = await nextChange();

    expect(change.added).toEqual(['fake__fresh']);
    expect(change.removed).toEqual(['fake__add']);
    expect([...change.changed].sort()).toEqual(['fake__echo', 'fake__env']);
    expect(tools.has('fake__add')).toBe(false);
    expect(tools.get('fake__env')?.permission).toBe('read');
    expect(tools.get('fake__echo')?.schema.parse({ text: 'hi' })).toEqual({
      success: false,
      issues: ["(root): must have required property 'loud'"],
    });
    const output = await run(tools.get('fake__fresh'), {});
    expect(JSON.stringify(output)).toContain('fresh ran');
    // The new list came in pages and ended on a cursor it had already sent.
    expect(warnings.join('\n')).toContain('repeated cursor');
    expect(warnings.join('\n')).toMatch(/tool list changed: .*\+fake__fresh.*-fake__add/);
  });

  it('applies the same pins and allow-list on refresh', async () => {
    const { client, tools, nextChange } = await setup({
      allow: ['echo', 'env', 'fresh'],
      permissionFor: (name) => (name === 'fake__env' ? 'exec' : undefined),
    });
    expect([...tools.keys()].sort()).toEqual(['fake__echo', 'fake__env']);
    await client.callTool('mutate', {});
    await nextChange();
    expect([...tools.keys()].sort()).toEqual(['fake__echo', 'fake__env', 'fake__fresh']);
    // The server now claims env is read-only; the pin keeps it exec.
    expect(tools.get('fake__env')?.permission).toBe('exec');
  });

  it('retires a removed tool when the registry cannot unregister it', async () => {
    const { client, tools, nextChange } = await setup({}, false);
    const add = tools.get('fake__add');
    await client.callTool('mutate', {});
    expect((await nextChange()).removed).toEqual(['fake__add']);
    const output = await run(add, { a: 1, b: 2 });
    expect(output).toEqual({
      content: [{ type: 'text', text: 'MCP server fake no longer offers add' }],
      isError: true,
    });
  });

  it('refreshes on demand and reports no change when nothing changed', async () => {
    const warnings: string[] = [];
    const { client } = fakeClient('ok', { onWarning: (message) => warnings.push(message) });
    open.push(client);
    await client.connect();
    const result = await registerMcpTools({ register: () => {} }, client, {
      onWarning: (message) => warnings.push(message),
      refreshOnChange: false,
    });
    const before = result.registered.map((tool) => tool.name);
    const change = await result.refresh();
    expect(change).toEqual({ added: [], removed: [], changed: [], dropped: result.dropped });
    expect(result.registered.map((tool) => tool.name)).toEqual(before);
  });
});
