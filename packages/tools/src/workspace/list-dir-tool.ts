import type { Tool } from '@mh/core';
import { plainToolSchema } from '../plain-object-schema.js';
import { toolWithSchema } from '../tool-with-schema.js';
import { listDirectory } from './directory-entries.js';
import { openInside } from './verified-open.js';
import { compareNames } from './walk-files.js';
import type { WorkspaceSettings } from './workspace-settings.js';

// A plain JSON Schema, not zod: loading this tool must not load zod (see plainToolSchema).
const input = {
  type: 'object',
  properties: {
    path: {
      description: 'Directory path, relative to the workspace root (default: the root).',
      type: 'string',
    },
  },
} as const;

/** The arguments of `list_dir`. */
export interface ListDirInput {
  /** Root-relative directory (default the root). */
  readonly path?: string;
}

/** `list_dir`: the entries of one directory, sorted, one per line, directories ending in `/`. */
export function listDirTool(settings: WorkspaceSettings): Tool<ListDirInput> {
  return toolWithSchema<ListDirInput>({
    name: 'list_dir',
    description:
      'List the entries of a directory in the workspace, sorted; directories end with "/".',
    schema: plainToolSchema(input),
    permission: 'read',
    idempotent: true,
    timeoutMs: 10_000,
    async run({ path }) {
      // Listed through the descriptor that was opened and verified, not by name again.
      const directory = await openInside(settings.root, path);
      let entries: Awaited<ReturnType<typeof listDirectory>>;
      try {
        if (directory.kind !== 'directory') {
          throw new Error(`${directory.relative} is a file, not a directory; use read_file.`);
        }
        entries = await listDirectory(directory);
      } finally {
        await directory.handle.close();
      }
      if (entries.length === 0) return `(${directory.relative} is empty)`;
      const names = entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort(compareNames);
      const shown = names.slice(0, settings.maxEntries);
      const rest = names.length - shown.length;
      return rest > 0 ? `${shown.join('\n')}\n[${rest} more entries not shown]` : shown.join('\n');
    },
  });
}
