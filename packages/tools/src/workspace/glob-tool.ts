import type { Tool } from '@mh/core';
import { plainToolSchema } from '../plain-object-schema.js';
import { toolWithSchema } from '../tool-with-schema.js';
import { globToRegExp } from './glob-pattern.js';
import { openInside } from './verified-open.js';
import { compareNames, walkFiles } from './walk-files.js';
import type { WorkspaceSettings } from './workspace-settings.js';

// A plain JSON Schema, not zod: loading this tool must not load zod (see plainToolSchema).
const input = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      description: 'Glob such as "**/*.ts" or "src/*.{js,json}"; "**" spans directories.',
    },
    path: {
      description: 'Directory the pattern is relative to (default: the workspace root).',
      type: 'string',
    },
  },
  required: ['pattern'],
} as const;

/** The arguments of `glob`. */
export interface GlobInput {
  /** The glob, relative to `path`. */
  readonly pattern: string;
  /** Root-relative directory the pattern starts from (default the root). */
  readonly path?: string;
}

/** `glob`: the files matching a pattern, as sorted root-relative paths, up to `maxEntries`. */
export function globTool(settings: WorkspaceSettings): Tool<GlobInput> {
  return toolWithSchema<GlobInput>({
    name: 'glob',
    description:
      'Find files in the workspace by glob pattern, e.g. "**/*.ts". Returns paths relative to the workspace root.',
    schema: plainToolSchema(input),
    permission: 'read',
    idempotent: true,
    timeoutMs: 30_000,
    async run({ pattern, path }, { signal }) {
      if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
        throw new Error(
          `Invalid pattern: ${pattern} must be relative and stay inside the workspace.`,
        );
      }
      const regex = globToRegExp(pattern);
      const base = await openInside(settings.root, path);
      const prefix = base.relative === '.' ? '' : `${base.relative}/`;
      const found: string[] = [];
      try {
        if (base.kind !== 'directory') {
          throw new Error(`${base.relative} is a file; give glob a directory as path.`);
        }
        for await (const file of walkFiles(settings.root, base, {
          ignore: settings.ignore,
          signal,
        })) {
          if (regex.test(file.relative.slice(prefix.length))) found.push(file.relative);
        }
      } finally {
        await base.handle.close();
      }
      if (found.length === 0) return `No files match ${pattern}.`;
      found.sort(compareNames);
      const shown = found.slice(0, settings.maxEntries);
      const rest = found.length - shown.length;
      return rest > 0 ? `${shown.join('\n')}\n[${rest} more files not shown]` : shown.join('\n');
    },
  });
}
