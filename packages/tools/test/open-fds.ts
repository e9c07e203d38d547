import { readdirSync, readlinkSync } from 'node:fs';

/**
 * The targets of this process's open descriptors that lie under `folder`, read from
 * `/proc/self/fd` (Linux). A workspace tool that forgets to close a descriptor on some path leaves
 * one behind here. Undefined where `/proc` is missing, so callers can skip the check.
 */
export function openDescriptorsUnder(folder: string): string[] | undefined {
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return undefined;
  }
  const under: string[] = [];
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${folder}/`)) under.push(target);
    } catch {
      // Closed between the listing and the readlink (the listing's own descriptor, for one).
    }
  }
  return under;
}
