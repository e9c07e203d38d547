import { ConfigError } from '@mh/core';
import { DEFAULT_IGNORED_DIRECTORIES } from './walk-files.js';
import { WorkspaceRoot } from './workspace-root.js';

/** Settings of `workspaceTools`. */
export interface WorkspaceToolsOptions {
  /** The folder the tools are confined to; must exist. */
  readonly root: string;
  /** Largest file `read_file` reads and `grep` searches, in bytes (default 1 MiB). */
  readonly maxFileBytes?: number;
  /** Most matches `grep` returns (default 100). */
  readonly maxMatches?: number;
  /** Most entries `list_dir` and `glob` return (default 1,000). */
  readonly maxEntries?: number;
  /** Directory names `grep` and `glob` do not descend into (default `.git`, `node_modules`). */
  readonly ignore?: readonly string[];
}

/** `WorkspaceToolsOptions` checked, with defaults filled in and the root opened. */
export interface WorkspaceSettings {
  /** The confining root. */
  readonly root: WorkspaceRoot;
  /** Largest file read or searched, in bytes. */
  readonly maxFileBytes: number;
  /** Most `grep` matches. */
  readonly maxMatches: number;
  /** Most `list_dir`/`glob` entries. */
  readonly maxEntries: number;
  /** Directory names not walked into. */
  readonly ignore: readonly string[];
}

/** Checks `options` and fills in defaults. Throws `ConfigError` naming the bad field. */
export function workspaceSettings(options: WorkspaceToolsOptions): WorkspaceSettings {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('options', 'expected { root }');
  }
  const settings = {
    root: new WorkspaceRoot(options.root),
    maxFileBytes: positiveInteger('maxFileBytes', options.maxFileBytes, 1024 * 1024),
    maxMatches: positiveInteger('maxMatches', options.maxMatches, 100),
    maxEntries: positiveInteger('maxEntries', options.maxEntries, 1_000),
    ignore: options.ignore ?? DEFAULT_IGNORED_DIRECTORIES,
  };
  if (
    !Array.isArray(settings.ignore) ||
    !settings.ignore.every((name) => typeof name === 'string')
  ) {
    throw new ConfigError('ignore', 'expected an array of directory names');
  }
  return settings;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(field, `expected an integer >= 1, got ${value}`);
  }
  return value;
}
