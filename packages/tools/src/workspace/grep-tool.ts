import type { Tool } from '@mh/core';
import { plainToolSchema } from '../plain-object-schema.js';
import { toolWithSchema } from '../tool-with-schema.js';
import { globToRegExp } from './glob-pattern.js';
import { RegexWorker } from './regex-worker.js';
import { readTextFile, type TextFileResult } from './text-file.js';
import { type OpenedEntry, openInside } from './verified-open.js';
import { walkFiles } from './walk-files.js';
import type { WorkspaceRoot } from './workspace-root.js';
import type { WorkspaceSettings } from './workspace-settings.js';

/** Longest line shown in a match; minified files would flood the context otherwise. */
const MAX_LINE_CHARS = 300;

// A plain JSON Schema, not zod: loading this tool must not load zod (see plainToolSchema).
const input = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      description: 'JavaScript regular expression, e.g. "TODO|FIXME".',
    },
    path: {
      description:
        'File or directory to search, relative to the workspace root (default: the root).',
      type: 'string',
    },
    glob: {
      description:
        'Only search files matching this glob: "*.ts" matches file names, "src/**/*.ts" paths from the root.',
      type: 'string',
    },
    ignoreCase: { description: 'Match case-insensitively (default false).', type: 'boolean' },
  },
  required: ['pattern'],
} as const;

/** The arguments of `grep`. */
export interface GrepInput {
  /** A JavaScript regular expression, tested line by line. */
  readonly pattern: string;
  /** Root-relative file or directory to search (default the root). */
  readonly path?: string;
  /** Only files matching this glob (file names without `/`, root-relative paths with it). */
  readonly glob?: string;
  /** Match case-insensitively. */
  readonly ignoreCase?: boolean;
}

/**
 * `grep`: searches text files for a regular expression and returns `path:line: text` lines, up to
 * `maxMatches`. Binary and oversized files are skipped.
 */
export function grepTool(settings: WorkspaceSettings): Tool<GrepInput> {
  return toolWithSchema<GrepInput>({
    name: 'grep',
    description:
      'Search the text files of the workspace for a JavaScript regular expression. Returns "path:line: text" lines.',
    schema: plainToolSchema(input),
    permission: 'read',
    idempotent: true,
    timeoutMs: 30_000,
    async run({ pattern, path, glob, ignoreCase }, { signal }) {
      try {
        // Compiling is safe; matching runs in a worker (see RegexWorker).
        new RegExp(pattern, ignoreCase ? 'i' : '');
      } catch (error) {
        throw new Error(
          `Invalid pattern: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const fileFilter = glob === undefined ? undefined : fileMatcher(glob);
      // A FIFO, socket, device or path leading out is refused here, before any worker starts.
      const start = await openInside(settings.root, path);
      const matches: string[] = [];
      let worker: RegexWorker | undefined;
      const stop = (): void => {
        void worker?.terminate();
      };
      signal.addEventListener('abort', stop, { once: true });
      try {
        worker = new RegexWorker(pattern, ignoreCase ? 'i' : '');
        const walk = walkFiles(settings.root, start, { ignore: settings.ignore, signal });
        for await (const file of walk) {
          if (fileFilter && !fileFilter(file.relative)) continue;
          const read = await readWalkedFile(settings.root, file.absolute, settings.maxFileBytes);
          if (!read?.ok) continue;
          const hits = await worker.match(read.text, settings.maxMatches + 1 - matches.length);
          for (const [line, text] of hits) {
            if (matches.length === settings.maxMatches) {
              const note = `[stopped after ${settings.maxMatches} matches; narrow the pattern, path or glob]`;
              return `${matches.join('\n')}\n${note}`;
            }
            matches.push(`${file.relative}:${line}: ${shorten(text.replace(/\r$/, ''))}`);
          }
        }
      } finally {
        signal.removeEventListener('abort', stop);
        stop();
        await start.handle.close();
      }
      return matches.length === 0 ? 'No matches.' : matches.join('\n');
    },
  });
}

/**
 * Opens a walked file (following a symlink only to inside the root), reads it from its descriptor
 * and closes it. Undefined when it vanished, changed into something refused, or leads out since
 * the listing: one such file does not fail the whole search.
 */
async function readWalkedFile(
  root: WorkspaceRoot,
  absolute: string,
  maxBytes: number,
): Promise<TextFileResult | undefined> {
  let file: OpenedEntry;
  try {
    file = await openInside(root, absolute);
  } catch {
    return undefined;
  }
  try {
    return await readTextFile(file, maxBytes);
  } finally {
    await file.handle.close();
  }
}

/** A glob without `/` matches file names (as `.gitignore` does); with `/`, root-relative paths. */
function fileMatcher(glob: string): (relative: string) => boolean {
  const regex = globToRegExp(glob);
  return glob.includes('/')
    ? (relative) => regex.test(relative)
    : (relative) => regex.test(relative.slice(relative.lastIndexOf('/') + 1));
}

function shorten(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
