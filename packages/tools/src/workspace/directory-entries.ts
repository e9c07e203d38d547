import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type { OpenedEntry } from './verified-open.js';

/**
 * The entries of a directory opened (and verified) by `openVerified`. On Linux it is listed
 * through `/proc/self/fd/<fd>`, which reaches the very directory the descriptor holds, so a folder
 * swapped for a symlink after the open cannot change what is listed. Elsewhere it is listed by its
 * verified real path and refused unless that path names the same inode before and after, which
 * narrows the race but cannot close it.
 */
export async function listDirectory(directory: OpenedEntry): Promise<Dirent[]> {
  try {
    return await readdir(`/proc/self/fd/${directory.handle.fd}`, { withFileTypes: true });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  // Best effort: the name must lead to the opened inode just before and just after the listing.
  await assertSameDirectory(directory);
  const entries = await readdir(directory.absolute, { withFileTypes: true });
  await assertSameDirectory(directory);
  return entries;
}

async function assertSameDirectory(directory: OpenedEntry): Promise<void> {
  const named = await stat(directory.absolute);
  if (named.dev !== directory.stats.dev || named.ino !== directory.stats.ino) {
    throw new Error(`Path refused: ${directory.relative} changed while being listed.`);
  }
}
