import type { ToolRunContext } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { globTool } from './glob-tool.js';
import { workspaceSettings } from './workspace-settings.js';

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };
let workspace: TempWorkspace;
let tool: ReturnType<typeof globTool>;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  tool = globTool(workspaceSettings({ root: workspace.root }));
});
afterAll(() => workspace.remove());

describe('glob', () => {
  it('finds files at any depth with **, sorted, without node_modules', async () => {
    expect(await tool.run({ pattern: '**/*.ts' }, context)).toBe('src/main.ts\nsrc/util/helper.ts');
  });

  it('matches only the top level without **', async () => {
    expect(await tool.run({ pattern: '*.txt' }, context)).toBe('inside-link.txt\nnotes.txt');
  });

  it('never lists a symlink that leads outside the root', async () => {
    const result = String(await tool.run({ pattern: '**' }, context));
    expect(result).not.toContain('escape');
    expect(result).not.toContain('secret');
  });

  it('takes the pattern relative to path and answers root-relative paths', async () => {
    expect(await tool.run({ pattern: '*.ts', path: 'src/util' }, context)).toBe(
      'src/util/helper.ts',
    );
  });

  it('says when nothing matches', async () => {
    expect(await tool.run({ pattern: '**/*.py' }, context)).toBe('No files match **/*.py.');
  });

  it('refuses a file as the base path', async () => {
    await expect(tool.run({ pattern: '*', path: 'notes.txt' }, context)).rejects.toThrow(
      'notes.txt is a file',
    );
  });

  it('refuses a pattern that climbs out with ..', async () => {
    await expect(tool.run({ pattern: '../**/*.txt' }, context)).rejects.toThrow('Invalid pattern');
  });
});
