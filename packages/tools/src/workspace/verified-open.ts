import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import type { WorkspacePath, WorkspaceRoot } from './workspace-root.js';

/**
 * `O_NOFOLLOW`: the last component must not be a symlink (the earlier ones are checked after the
 * open, by descriptor). `O_NONBLOCK`: a FIFO without a writer opens at once instead of holding a
 * libuv thread in open() for good. `O_NOCTTY`: opening a terminal never makes it ours. Absent
 * constants (Windows) count as 0.
 */
const OPEN_FLAGS =
  constants.O_RDONLY |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0) |
  (constants.O_NOCTTY ?? 0);

/** A file or directory opened inside the root and verified by its descriptor. */
export interface OpenedEntry extends WorkspacePath {
  /** The open descriptor; read from it, never by name again. The caller closes it. */
  readonly handle: FileHandle;
  /** What was opened; FIFOs, sockets and devices are refused before this exists. */
  readonly kind: 'file' | 'directory';
  /** `fstat` of the descriptor. */
  readonly stats: Stats;
}

/**
 * Resolves `requested` like `WorkspaceRoot.resolve` (so a symlink inside the root still works and
 * one leading out is refused by name), then opens the result with `openVerified`. Throws an error
 * whose message the model reads; on any throw no descriptor stays open.
 */
export async function openInside(
  root: WorkspaceRoot,
  requested: string | undefined,
): Promise<OpenedEntry> {
  const resolved = await root.resolve(requested);
  return openVerified(root, resolved.absolute, requested || '.');
}

/**
 * Opens `absolute` without following a final symlink, then checks what the descriptor really is:
 * inside the root's real path (a folder on the way may have been swapped for a symlink since any
 * earlier check) and a regular file or a directory. `shown` names the path in messages. Throws
 * (having closed the descriptor) when either check fails.
 */
export async function openVerified(
  root: WorkspaceRoot,
  absolute: string,
  shown: string,
): Promise<OpenedEntry> {
  let handle: FileHandle;
  try {
    handle = await open(absolute, OPEN_FLAGS);
  } catch (error) {
    throw await openFailure(error, absolute, shown);
  }
  try {
    const stats = await handle.stat();
    const real = await openedPath(handle, absolute, stats);
    const relative = real === undefined ? undefined : root.relativeOf(real);
    if (real === undefined || relative === undefined) {
      throw new Error(
        `Path refused: ${shown} leads outside the workspace once opened (a part of it is a symlink leading out).`,
      );
    }
    return { handle, kind: kindOf(stats, relative), stats, absolute: real, relative };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The real path of what `handle` holds. On Linux `/proc/self/fd/<fd>` names it exactly. Elsewhere
 * (no /proc) it is a best effort: the name is resolved twice around a `stat` and accepted only when
 * both resolutions agree and lead to the same inode. That catches a swap still in place, not one
 * undone and redone between the steps: with /proc disabled on purpose, the race test still saw 2
 * escapes in 200 read_file calls. (An unlinked file reads as "<path> (deleted)": still where it
 * was, so still judged by that path.)
 */
async function openedPath(
  handle: FileHandle,
  absolute: string,
  stats: Stats,
): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    if (!isCode(error, 'ENOENT') && !isCode(error, 'ENOTDIR')) throw error;
  }
  try {
    const real = await realpath(absolute);
    const named = await stat(real);
    const again = await realpath(absolute);
    const same = named.dev === stats.dev && named.ino === stats.ino && again === real;
    return same ? real : undefined;
  } catch {
    return undefined;
  }
}

function kindOf(stats: Stats, relative: string): OpenedEntry['kind'] {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  throw specialFile(relative, specialName(stats));
}

function specialName(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function specialFile(shown: string, what: string): Error {
  return new Error(
    `Path refused: ${shown} is ${what}; the workspace tools read regular files and directories only.`,
  );
}

/** Turns a failed open into what the model should read; unknown failures pass through. */
async function openFailure(error: unknown, absolute: string, shown: string): Promise<unknown> {
  if (isCode(error, 'ENOENT')) return new Error(`No such file or directory: ${shown}`);
  if (isCode(error, 'ELOOP')) {
    // The final component became a symlink after it was resolved: refused rather than followed.
    return new Error(`Path refused: ${shown} was replaced by a symlink while being opened.`);
  }
  if (isCode(error, 'ENXIO')) {
    // open() on a socket (or a device without a driver) fails this way; lstat only names it.
    const stats = await lstat(absolute).catch(() => undefined);
    return specialFile(shown, stats ? specialName(stats) : 'a socket or device');
  }
  return error;
}

function isCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}
