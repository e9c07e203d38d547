import { rename, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { listDirectory } from './directory-entries.js';
import { openInside, openVerified } from './verified-open.js';
import { WorkspaceRoot } from './workspace-root.js';

/**
 * The check after the open, on its own: each case hands `openVerified` a path that an earlier
 * check would have passed but that leads elsewhere by the time it is opened, which is what the
 * race does, without the timing.
 */

let workspace: TempWorkspace;
let root: WorkspaceRoot;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  root = new WorkspaceRoot(workspace.root);
});
afterAll(() => workspace.remove());

describe('openVerified', () => {
  it('opens a file inside the root and names its real path', async () => {
    const file = await openVerified(root, path.join(root.real, 'notes.txt'), 'notes.txt');
    try {
      expect([file.kind, file.relative, file.stats.size]).toEqual(['file', 'notes.txt', 34]);
    } finally {
      await file.handle.close();
    }
  });

  it('refuses what it opened through a folder that is a symlink leading out', async () => {
    // escape-dir -> outside/: the kernel follows it, /proc/self/fd names where it went.
    const through = path.join(root.real, 'escape-dir', 'secret.txt');
    await expect(openVerified(root, through, 'escape-dir/secret.txt')).rejects.toThrow(
      'Path refused: escape-dir/secret.txt leads outside the workspace once opened',
    );
  });

  it('refuses a final symlink instead of following it, even one leading inside', async () => {
    await expect(
      openVerified(root, path.join(root.real, 'inside-link.txt'), 'inside-link.txt'),
    ).rejects.toThrow(
      'Path refused: inside-link.txt was replaced by a symlink while being opened.',
    );
  });

  it('says when the path does not exist', async () => {
    await expect(openVerified(root, path.join(root.real, 'gone'), 'gone')).rejects.toThrow(
      'No such file or directory: gone',
    );
  });
});

describe('openInside', () => {
  it('follows a final symlink that stays inside, opening its target', async () => {
    const file = await openInside(root, 'inside-link.txt');
    try {
      expect(file.relative).toBe('notes.txt');
    } finally {
      await file.handle.close();
    }
  });
});

describe('listDirectory', () => {
  it('lists the folder that was opened, even once its name leads outside', async () => {
    const folder = path.join(root.real, 'empty');
    const directory = await openVerified(root, folder, 'empty');
    try {
      // The swap the race makes, done slowly: the name now leads to outside/.
      await rename(folder, `${folder}-moved`);
      await symlink(workspace.outside, folder);
      if (process.platform === 'linux') {
        expect(await listDirectory(directory)).toEqual([]);
      } else {
        // Without /proc the listing goes by name, so the swap is caught and refused instead.
        await expect(listDirectory(directory)).rejects.toThrow('empty changed while being listed');
      }
    } finally {
      await directory.handle.close();
    }
  });
});
