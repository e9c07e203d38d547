import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
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
 * Yields the files under `start` (itself, when it is a file) in sorted, depth-first order.
 * Symlinked directories are not followed (no cycles, no escapes); a symlinked file is yielded only
 * when its target lies inside the root. Unreadable directories are skipped.
 */
export async function* walkFiles(
  root: WorkspaceRoot,
  start: WorkspacePath,
  options: WalkOptions,
): AsyncGenerator<WorkspacePath, void, undefined> {
  const startStats = await stat(start.absolute);
  if (startStats.isFile()) {
    yield start;
    return;
  }
  const stack: WorkspacePath[] = [start];
  while (stack.length > 0) {
    options.signal?.throwIfAborted();
    const directory = stack.pop() as WorkspacePath;
    let entries: Dirent[];
    try {
      entries = await readdir(directory.absolute, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    const subdirectories: WorkspacePath[] = [];
    for (const entry of entries) {
      const child = {
        absolute: path.join(directory.absolute, entry.name),
        relative: directory.relative === '.' ? entry.name : `${directory.relative}/${entry.name}`,
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

async function isFileInside(root: WorkspaceRoot, link: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    return root.relativeOf(target) !== undefined && (await stat(target)).isFile();
  } catch {
    return false;
  }
}
