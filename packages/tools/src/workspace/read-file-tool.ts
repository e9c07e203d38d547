import type { Tool } from '@mh/core';
import { plainToolSchema } from '../plain-object-schema.js';
import { toolWithSchema } from '../tool-with-schema.js';
import { formatBytes, readTextFile } from './text-file.js';
import { openInside } from './verified-open.js';
import type { WorkspaceSettings } from './workspace-settings.js';

/** Lines returned when the model gives no `limit`. */
const DEFAULT_LINE_LIMIT = 2_000;

// A plain JSON Schema, not zod: loading this tool must not load zod (see plainToolSchema).
const input = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File path, relative to the workspace root.' },
    offset: {
      description: 'First line to read, 1-based (default 1).',
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    },
    limit: {
      description: `Most lines to read (default ${DEFAULT_LINE_LIMIT}).`,
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    },
  },
  required: ['path'],
} as const;

/** The arguments of `read_file`. */
export interface ReadFileInput {
  /** Root-relative path of the file. */
  readonly path: string;
  /** First line, 1-based (default 1). */
  readonly offset?: number;
  /** Most lines (default 2,000). */
  readonly limit?: number;
}

/**
 * `read_file`: returns a text file's lines, optionally a window of them. Binary files and files
 * over the size cap are refused with a message saying what to do instead.
 */
export function readFileTool(settings: WorkspaceSettings): Tool<ReadFileInput> {
  return toolWithSchema<ReadFileInput>({
    name: 'read_file',
    description:
      'Read a text file in the workspace. Use offset and limit (in lines) for a part of a long file.',
    schema: plainToolSchema(input),
    permission: 'read',
    idempotent: true,
    timeoutMs: 10_000,
    async run({ path, offset = 1, limit = DEFAULT_LINE_LIMIT }) {
      // Opened first, then checked by descriptor, then read from it (see verified-open.ts).
      const file = await openInside(settings.root, path);
      let read: Awaited<ReturnType<typeof readTextFile>>;
      try {
        read = await readTextFile(file, settings.maxFileBytes);
      } finally {
        await file.handle.close();
      }
      if (!read.ok) {
        if (read.reason === 'not-a-file') {
          throw new Error(`${file.relative} is a directory; use list_dir to see what it holds.`);
        }
        if (read.reason === 'too-large') {
          throw new Error(
            `${file.relative} is ${formatBytes(read.bytes)}, over the ` +
              `${formatBytes(settings.maxFileBytes)} limit of read_file; use grep to find the lines you need.`,
          );
        }
        throw new Error(`${file.relative} is a binary file; read_file reads text files only.`);
      }
      if (read.text === '') return `(${file.relative} is empty)`;
      const lines = read.text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      if (offset > lines.length) {
        throw new Error(
          `offset ${offset} is past the end of ${file.relative} (${lines.length} lines).`,
        );
      }
      const last = Math.min(lines.length, offset - 1 + limit);
      const text = lines.slice(offset - 1, last).join('\n');
      if (offset === 1 && last === lines.length) return text;
      const more = last < lines.length ? `; read more with offset ${last + 1}` : '';
      return `${text}\n[lines ${offset}-${last} of ${lines.length} in ${file.relative}${more}]`;
    },
  });
}
