import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Tool, ToolRunContext } from '@mh/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { workspaceTools } from '../src/workspace/workspace-tools.js';
import { type FolderSwapper, startFolderSwapper } from './folder-swapper.js';
import { openDescriptorsUnder } from './open-fds.js';

/**
 * Check-then-use race (issue 15, defect 4): while a child process swaps `root/dir` (a real folder)
 * with `root/link` (a symlink to a folder outside the root) atomically and without pause, each
 * workspace tool is called 200 times on a path through `dir`. Whatever the timing, a call may
 * answer with inside content or refuse, but never with a byte or a name from outside.
 */

/** Written only in the outside folder, in file contents and in a file name. */
const OUTSIDE_MARK = 'OUTSIDE-SECRET';
const TRIES = 200;
/** Calls in flight at once, as the executor runs read tools in parallel; also halves the wall time. */
const PARALLEL = 4;
const context: ToolRunContext = { signal: new AbortController().signal, callId: 'c1', attempt: 1 };

let base: string;
let root: string;
let tools: Map<string, Tool>;
let swapper: FolderSwapper | undefined;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'mh-race-'));
  root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'dir'), { recursive: true });
  await mkdir(outside);
  // Same name inside and outside, so a path built from the inside listing can still land outside.
  await writeFile(path.join(root, 'dir', 'file.txt'), 'inside MARK\n');
  await writeFile(path.join(outside, 'file.txt'), `${OUTSIDE_MARK} MARK\n`);
  await writeFile(path.join(outside, `${OUTSIDE_MARK}.txt`), `${OUTSIDE_MARK} MARK\n`);
  await symlink(outside, path.join(root, 'link'));
  tools = new Map(workspaceTools({ root }).map((tool) => [tool.name, tool]));
}, 60_000);
afterAll(() => rm(base, { recursive: true, force: true }));
// One swapper per test, so a slow test cannot outlive the swapper's own deadline.
beforeEach(async () => {
  swapper = await startFolderSwapper(path.join(root, 'dir'), path.join(root, 'link'));
  // python3 starts slowly on a loaded 2-core machine.
}, 60_000);
afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
});

/** What the calls of one tool returned: inside content or nothing, a refusal, or outside bytes. */
interface Tally {
  answered: number;
  refused: number;
  escaped: number;
}

async function hammer(name: string, input: Record<string, unknown>): Promise<Tally> {
  const tool = tools.get(name) as Tool;
  const tally: Tally = { answered: 0, refused: 0, escaped: 0 };
  let started = 0;
  const call = async (): Promise<void> => {
    let text: string;
    let failed = false;
    try {
      text = JSON.stringify(await tool.run(input, context));
    } catch (error) {
      text = error instanceof Error ? error.message : String(error);
      failed = true;
    }
    // A refusal's message could leak an outside name too, so both outcomes are searched.
    if (text.includes(OUTSIDE_MARK)) tally.escaped++;
    else if (failed) tally.refused++;
    else tally.answered++;
  };
  const lane = async (): Promise<void> => {
    while (started < TRIES) {
      started++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  // The figures the issue asks for, before and after the fix.
  process.stdout.write(`${name} ${JSON.stringify(input)}: ${JSON.stringify(tally)} of ${TRIES}\n`);
  return tally;
}

describe('workspace tools under a folder swapped for an outside symlink', () => {
  it.each([
    ['read_file', { path: 'dir/file.txt' }],
    ['list_dir', { path: 'dir' }],
    // From the root, so the walk descends into whichever of dir and link is the folder right now.
    ['grep', { pattern: 'MARK' }],
    ['glob', { pattern: '**/*.txt' }],
    ['glob', { pattern: '*.txt', path: 'dir' }],
  ])(
    '%s %j never returns outside bytes or names',
    async (name, input) => {
      const tally = await hammer(name, input);
      expect(swapper?.running()).toBe(true);
      expect(tally.escaped).toBe(0);
    },
    // grep starts a regex worker per call: ~20 ms idle, but 10x that on a loaded 2-core machine.
    120_000,
  );

  it('leaves no descriptor open under the workspace, whatever each call ended with', () => {
    const open = openDescriptorsUnder(base);
    if (open === undefined) return; // No /proc here: nothing to count with.
    expect(open).toEqual([]);
  });
});
