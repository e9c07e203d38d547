import { realpathSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '@mh/core';

/** A path inside the workspace, resolved through symlinks. */
export interface WorkspacePath {
  /** The real absolute path on disk. */
  readonly absolute: string;
  /** The path relative to the root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
}

/**
 * A folder the workspace tools are confined to. Every path a model gives is resolved against it
 * and checked twice: lexically (no `..` escape, no absolute path elsewhere) and after `realpath`
 * (no symlink leading out). Refusals are errors whose message the model reads.
 */
export class WorkspaceRoot {
  /** The root as given, resolved to an absolute path. */
  readonly given: string;
  /** The root's real path (symlinks resolved). */
  readonly real: string;

  /** Creates a root. Throws `ConfigError` (field `root`) when it is not an existing directory. */
  constructor(root: string) {
    if (typeof root !== 'string' || root === '') {
      throw new ConfigError('root', 'expected the path of a directory');
    }
    this.given = path.resolve(root);
    try {
      this.real = realpathSync(this.given);
    } catch (error) {
      throw new ConfigError('root', `cannot open ${root}`, { cause: error });
    }
    if (!statSync(this.real).isDirectory())
      throw new ConfigError('root', `${root} is not a directory`);
  }

  /** Resolves `requested` (root-relative, or absolute inside the root) to a real path inside it. */
  async resolve(requested: string | undefined): Promise<WorkspacePath> {
    const shown = requested === undefined || requested === '' ? '.' : requested;
    const candidate = this.#lexical(shown);
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') {
        throw new Error(`No such file or directory: ${shown}`);
      }
      throw error;
    }
    const relative = this.relativeOf(real);
    if (relative === undefined) {
      throw new Error(`Path refused: ${shown} is a symlink that leads outside the workspace.`);
    }
    return { absolute: real, relative };
  }

  /** The root-relative `/` path of a real path, or undefined when it lies outside the root. */
  relativeOf(absolute: string): string | undefined {
    return relativeInside(this.real, absolute);
  }

  #lexical(shown: string): string {
    if (shown.includes('\0'))
      throw new Error(`Path refused: ${JSON.stringify(shown)} contains a NUL byte.`);
    if (path.isAbsolute(shown)) {
      const normalized = path.resolve(shown);
      // An absolute path may name the root as given or as its real path (e.g. /tmp vs /private/tmp).
      for (const base of [this.real, this.given]) {
        const relative = relativeInside(base, normalized);
        if (relative !== undefined) return path.join(this.real, relative);
      }
      throw new Error(
        `Path refused: ${shown} is outside the workspace. Use a path relative to the workspace root.`,
      );
    }
    const candidate = path.resolve(this.real, shown);
    if (relativeInside(this.real, candidate) === undefined) {
      throw new Error(
        `Path refused: ${shown} leads outside the workspace. Use a path inside the workspace root.`,
      );
    }
    return candidate;
  }
}

function relativeInside(base: string, target: string): string | undefined {
  const relative = path.relative(base, target);
  if (relative === '') return '.';
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return undefined;
  }
  return relative.split(path.sep).join('/');
}
