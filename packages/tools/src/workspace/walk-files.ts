import type { Dirent } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { listDirectory } from './directory-entries.js';
import { type OpenedEntry, openVerified } from './verified-open.js';
import type { WorkspacePath, WorkspaceRoot } from './workspace-root.js';

/** Directory names skipped by default when walking: version control and dependencies. */
export const DEFAULT_IGNORED_DIRECTORIES: readonly string[] = Object.freeze([
  '.git',
  'node_modules',
]);

/** How to walk. */
export interface WalkOptions {
  /** Directory names not descended into. */
  readonly ignore: readonly string[];
  /** Stops the walk between directories. */
  readonly signal?: AbortSignal;
}

/**
 * Yields the files under `start` (itself, when it is a file) in sorted, depth-first order. Every
 * directory is opened and verified by descriptor before it is listed, so a folder swapped for a
 * symlink mid-walk is skipped, never listed. Symlinked directories are not followed (no cycles,
 * no escapes); a symlinked file is yielded only when its target lies inside the root. Unreadable
 * directories are skipped. Yielded paths are names only: open them with `openInside` to read.
 * `start` stays open and is the caller's to close.
 */
export async function* walkFiles(
  root: WorkspaceRoot,
  start: OpenedEntry,
  options: WalkOptions,
): AsyncGenerator<WorkspacePath, void, undefined> {
  if (start.kind === 'file') {
    yield { absolute: start.absolute, relative: start.relative };
    return;
  }
  const stack: WorkspacePath[] = [start];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const pending = stack.pop() as WorkspacePath;
    const listed = await (pending === start ? listStart(start) : listSubdirectory(root, pending));
    if (listed === undefined) continue;
    const { absolute, entries } = listed;
    entries.sort((a, b) => compareNames(a.name, b.name));
    const subdirectories: WorkspacePath[] = [];
    for (const entry of entries) {
      const child = {
        // Under the verified real path, so the next open starts from where the listing came from.
        absolute: path.join(absolute, entry.name),
        relative: pending.relative === '.' ? entry.name : `${pending.relative}/${entry.name}`,
      };
      if (entry.isDirectory()) {
        if (!options.ignore.includes(entry.name)) subdirectories.push(child);
      } else if (entry.isFile()) {
        yield child;
      } else if (entry.isSymbolicLink() && (await isFileInside(root, child.absolute))) {
        yield child;
      }
    }
    // Pushed in reverse so the stack pops them in sorted order.
    for (const subdirectory of subdirectories.reverse()) stack.push(subdirectory);
  }
}

/** Plain code-unit order: the same on every machine, unlike `localeCompare`. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What a directory holds, and the verified real path it was listed from. */
interface Listing {
  readonly absolute: string;
  readonly entries: Dirent[];
}

/** The start directory is already open and verified; the caller closes it. */
async function listStart(start: OpenedEntry): Promise<Listing | undefined> {
  try {
    return { absolute: start.absolute, entries: await listDirectory(start) };
  } catch {
    return undefined;
  }
}

/**
 * Opens a subdirectory found by a listing (without following it, should it have become a symlink
 * since), lists it by descriptor and closes it. Undefined when it cannot be, or may not be, read.
 */
async function listSubdirectory(
  root: WorkspaceRoot,
  pending: WorkspacePath,
): Promise<Listing | undefined> {
  let directory: OpenedEntry;
  try {
    directory = await openVerified(root, pending.absolute, pending.relative);
  } catch {
    return undefined;
  }
  try {
    if (directory.kind !== 'directory') return undefined;
    return { absolute: directory.absolute, entries: await listDirectory(directory) };
  } catch {
    return undefined;
  } finally {
    await directory.handle.close();
  }
}

/** Whether a symlink leads to a regular file inside the root; only decides if a name is listed. */
async function isFileInside(root: WorkspaceRoot, link: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    return root.relativeOf(target) !== undefined && (await stat(target)).isFile();
  } catch {
    return false;
  }
}
