import type { ToolRunContext } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { grepTool } from './grep-tool.js';
import { workspaceSettings } from './workspace-settings.js';

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };
let workspace: TempWorkspace;
let tool: ReturnType<typeof grepTool>;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  tool = grepTool(workspaceSettings({ root: workspace.root }));
});
afterAll(() => workspace.remove());

describe('grep', () => {
  it('returns path:line: text for each match, skipping node_modules and outside links', async () => {
    expect(await tool.run({ pattern: 'TODO' }, context)).toBe(
      'src/main.ts:2: // TODO: wire it up\nsrc/util/helper.ts:3: // TODO upper',
    );
  });

  it('matches case-insensitively when asked', async () => {
    const result = String(
      await tool.run({ pattern: 'todo', ignoreCase: true, path: 'src/util' }, context),
    );
    expect(result.split('\n')).toEqual([
      'src/util/helper.ts:2: // todo lower case',
      'src/util/helper.ts:3: // TODO upper',
    ]);
  });

  it('filters files by a name glob', async () => {
    expect(await tool.run({ pattern: '\\d+', glob: '*.json' }, context)).toBe(
      'src/data.json:1: { "answer": 42 }',
    );
  });

  it('searches a single file', async () => {
    expect(await tool.run({ pattern: 'line$', path: 'notes.txt' }, context)).toBe(
      'notes.txt:1: first line\nnotes.txt:2: second line\nnotes.txt:3: third line',
    );
  });

  it('stops at maxMatches and says so', async () => {
    const capped = grepTool(workspaceSettings({ root: workspace.root, maxMatches: 1 }));
    expect(await capped.run({ pattern: 'line' }, context)).toMatch(
      /^inside-link\.txt:1: first line\n\[stopped after 1 matches/,
    );
  });

  it('says when nothing matches', async () => {
    expect(await tool.run({ pattern: 'no such text' }, context)).toBe('No matches.');
  });

  it('reports an invalid regular expression', async () => {
    await expect(tool.run({ pattern: '(' }, context)).rejects.toThrow(/^Invalid pattern: /);
  });

  it('refuses to search outside the root', async () => {
    await expect(tool.run({ pattern: 'TODO', path: '..' }, context)).rejects.toThrow(
      'leads outside the workspace',
    );
  });
});

describe('grep with a pathological pattern', () => {
  it('stops a catastrophically backtracking search when its signal aborts', async () => {
    const root = await makeTempWorkspace();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${root.root}/evil.txt`, `${'a'.repeat(40)}!\n`);
    const evil = grepTool(workspaceSettings({ root: root.root }));
    const started = Date.now();
    const run = evil.run(
      { pattern: '(a+)+$', path: 'evil.txt' },
      { ...context, signal: AbortSignal.timeout(200) },
    );
    await expect(run).rejects.toThrow();
    // Matching 2^40 paths would take hours; the worker is terminated instead.
    expect(Date.now() - started).toBeLessThan(5_000);
    await root.remove();
  });
});
