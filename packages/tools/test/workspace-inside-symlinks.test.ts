import { symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Tool, ToolRunContext } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTempWorkspace,
  type TempWorkspace,
} from '../src/workspace/__fixtures__/temp-workspace.js';
import { workspaceTools } from '../src/workspace/workspace-tools.js';
import { openDescriptorsUnder } from './open-fds.js';

/**
 * Symlinks that stay inside the root keep working once the tools open first and verify what they
 * opened: a final-component link (which `O_NOFOLLOW` alone would refuse), a relative link, a chain
 * of links, and a path through a linked folder. Links leading out are still refused.
 *
 * Added to the shared fixture: `rel-link.txt -> notes.txt` (relative), `chain.txt ->
 * inside-link.txt`, `src-link -> src/`.
 */

const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };
let workspace: TempWorkspace;
let tools: Map<string, Tool>;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  await symlink('notes.txt', path.join(workspace.root, 'rel-link.txt'));
  await symlink(
    path.join(workspace.root, 'inside-link.txt'),
    path.join(workspace.root, 'chain.txt'),
  );
  await symlink(path.join(workspace.root, 'src'), path.join(workspace.root, 'src-link'));
  tools = new Map(workspaceTools({ root: workspace.root }).map((tool) => [tool.name, tool]));
});
afterAll(() => workspace.remove());

function run(name: string, input: Record<string, unknown>): Promise<unknown> {
  return Promise.resolve((tools.get(name) as Tool).run(input, context));
}

const NOTES = 'first line\nsecond line\nthird line';

describe('workspace tools and symlinks inside the root', () => {
  it.each(['inside-link.txt', 'rel-link.txt', 'chain.txt'])(
    'read_file follows %s',
    async (link) => {
      expect(await run('read_file', { path: link })).toBe(NOTES);
    },
  );

  it('read_file reads through a linked folder, naming the real path in messages', async () => {
    expect(await run('read_file', { path: 'src-link/data.json' })).toBe('{ "answer": 42 }');
    await expect(run('read_file', { path: 'src-link/util' })).rejects.toThrow(
      'src/util is a directory; use list_dir to see what it holds.',
    );
  });

  it('list_dir lists a linked folder', async () => {
    expect(await run('list_dir', { path: 'src-link' })).toBe('data.json\nmain.ts\nutil/');
  });

  it('grep searches a linked folder and files linked from inside, not links leading out', async () => {
    expect(await run('grep', { pattern: 'TODO', path: 'src-link' })).toBe(
      'src/main.ts:2: // TODO: wire it up\nsrc/util/helper.ts:3: // TODO upper',
    );
    expect(await run('grep', { pattern: '^first' })).toBe(
      [
        'chain.txt:1: first line',
        'inside-link.txt:1: first line',
        'notes.txt:1: first line',
        'rel-link.txt:1: first line',
      ].join('\n'),
    );
  });

  it('glob lists files linked from inside and walks a linked folder given as path', async () => {
    expect(await run('glob', { pattern: '*.txt' })).toBe(
      'chain.txt\ninside-link.txt\nnotes.txt\nrel-link.txt',
    );
    expect(await run('glob', { pattern: '**/*.ts', path: 'src-link' })).toBe(
      'src/main.ts\nsrc/util/helper.ts',
    );
  });

  it('still refuses links that lead out', async () => {
    await expect(run('read_file', { path: 'escape-link.txt' })).rejects.toThrow(
      'symlink that leads outside the workspace',
    );
    await expect(run('list_dir', { path: 'escape-dir' })).rejects.toThrow(
      'symlink that leads outside the workspace',
    );
    await expect(run('read_file', { path: 'escape-dir/secret.txt' })).rejects.toThrow(
      'leads outside the workspace',
    );
  });

  it('leaves no descriptor open under the workspace', () => {
    const open = openDescriptorsUnder(path.dirname(workspace.root));
    if (open === undefined) return; // No /proc here: nothing to count with.
    expect(open).toEqual([]);
  });
});
