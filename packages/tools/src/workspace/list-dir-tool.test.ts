import type { ToolRunContext } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { listDirTool } from './list-dir-tool.js';
import { workspaceSettings } from './workspace-settings.js';

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };
let workspace: TempWorkspace;
let tool: ReturnType<typeof listDirTool>;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  tool = listDirTool(workspaceSettings({ root: workspace.root }));
});
afterAll(() => workspace.remove());

describe('list_dir', () => {
  it('lists a directory sorted, with a trailing / on directories', async () => {
    expect(await tool.run({ path: 'src' }, context)).toBe('data.json\nmain.ts\nutil/');
  });

  it('lists the root when no path is given', async () => {
    const listing = String(await tool.run({}, context)).split('\n');
    expect(listing).toContain('empty/');
    expect(listing).toContain('notes.txt');
  });

  it('says when a directory is empty', async () => {
    expect(await tool.run({ path: 'empty' }, context)).toBe('(empty is empty)');
  });

  it('refuses a directory outside the root reached through a symlink', async () => {
    await expect(tool.run({ path: 'escape-dir' }, context)).rejects.toThrow(
      'leads outside the workspace',
    );
  });

  it('refuses a file and suggests read_file', async () => {
    await expect(tool.run({ path: 'notes.txt' }, context)).rejects.toThrow('use read_file');
  });

  it('caps the number of entries and says how many were left out', async () => {
    const capped = listDirTool(workspaceSettings({ root: workspace.root, maxEntries: 2 }));
    expect(await capped.run({ path: 'src' }, context)).toBe(
      'data.json\nmain.ts\n[1 more entries not shown]',
    );
  });
});
