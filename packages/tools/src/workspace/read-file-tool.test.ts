import { type ToolRunContext, toolResultText } from '@mh/core';
import { collectOutcomes } from '@mh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyToolExecutor } from '../policy-tool-executor.js';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { readFileTool } from './read-file-tool.js';
import { workspaceSettings } from './workspace-settings.js';
import { workspaceTools } from './workspace-tools.js';

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };
let workspace: TempWorkspace;
let tool: ReturnType<typeof readFileTool>;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  tool = readFileTool(workspaceSettings({ root: workspace.root, maxFileBytes: 1_000 }));
});
afterAll(() => workspace.remove());

describe('read_file', () => {
  it('returns the text of a file', async () => {
    expect(await tool.run({ path: 'notes.txt' }, context)).toBe(
      'first line\nsecond line\nthird line',
    );
  });

  it('returns a window of lines with a footer saying where it is', async () => {
    expect(await tool.run({ path: 'notes.txt', offset: 2, limit: 1 }, context)).toBe(
      'second line\n[lines 2-2 of 3 in notes.txt; read more with offset 3]',
    );
  });

  it('refuses an offset past the end', async () => {
    await expect(tool.run({ path: 'notes.txt', offset: 9 }, context)).rejects.toThrow(
      'offset 9 is past the end of notes.txt (3 lines).',
    );
  });

  it('refuses a binary file', async () => {
    await expect(tool.run({ path: 'image.bin' }, context)).rejects.toThrow(
      'image.bin is a binary file; read_file reads text files only.',
    );
  });

  it('refuses a file over the size cap and suggests grep', async () => {
    await expect(tool.run({ path: 'big.log' }, context)).rejects.toThrow(
      /over the .* limit.*use grep/,
    );
  });

  it('refuses a directory and suggests list_dir', async () => {
    await expect(tool.run({ path: 'src' }, context)).rejects.toThrow('use list_dir');
  });

  it('refuses a ../ escape', async () => {
    await expect(tool.run({ path: '../outside/secret.txt' }, context)).rejects.toThrow(
      'leads outside the workspace',
    );
  });

  it('refuses a symlink that points outside the root', async () => {
    await expect(tool.run({ path: 'escape-link.txt' }, context)).rejects.toThrow(
      'symlink that leads outside the workspace',
    );
  });

  it('shows the refusal to the model as an error result', async () => {
    const executor = new PolicyToolExecutor({ tools: workspaceTools({ root: workspace.root }) });
    const calls = [
      { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: '../outside/secret.txt' } },
    ] as const;
    const outcomes = await collectOutcomes(executor.execute(calls, { signal: context.signal }));
    expect(outcomes[0]?.status).toBe('error');
    expect(outcomes[0] && toolResultText(outcomes[0].result)).toMatch(/^Path refused: /);
  });
});
