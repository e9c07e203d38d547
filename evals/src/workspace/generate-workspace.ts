import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '@mh/core';
import { buildModel, SUITE_SEED } from './build-model.js';
import type { WorkspaceModel } from './model-types.js';
import { SeededRandom } from './random.js';
import { renderConfig } from './render-config.js';
import { renderData } from './render-data.js';
import { renderNotes } from './render-notes.js';
import { renderSource } from './render-source.js';

/** A generated workspace: its files (root-relative path → text) and the model behind them. */
export interface Workspace {
  /** The seed it was generated from. */
  readonly seed: number;
  /** Every file, sorted by path. */
  readonly files: ReadonlyMap<string, string>;
  /** The structured truth the files were rendered from (for independent recomputation). */
  readonly model: WorkspaceModel;
}

/**
 * Generates the suite's workspace from `seed`: source files, config, logs, CSV exports, ledgers,
 * metrics, notes and documents, three of them with planted prompt injections. Deterministic: the
 * same seed gives byte-identical files.
 */
export function generateWorkspace(seed: number = SUITE_SEED): Workspace {
  const model = buildModel(seed);
  // Prose gets its own stream, so changing a document does not move every other value.
  const prose = new SeededRandom((seed ^ 0x5f3759df) >>> 0);
  const all: Record<string, string> = {
    ...renderSource(model),
    ...renderConfig(model),
    ...renderData(model),
    ...renderNotes(model, prose),
  };
  const files = new Map(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { seed, files, model };
}

/**
 * What a report calls the files: their count and the first 12 hex digits of a SHA-256 over every
 * path and text. Two runs are comparable only on the same files; the seed alone does not say so
 * once the generator changes.
 */
export function workspaceDigest(workspace: Pick<Workspace, 'files'>): string {
  const hash = createHash('sha256');
  for (const [path, text] of workspace.files) hash.update(`${path}\0${text}\0`);
  return `${workspace.files.size} files, sha256 ${hash.digest('hex').slice(0, 12)}`;
}

/** The text of `path` in `workspace`; throws `ConfigError` when there is no such file. */
export function fileText(workspace: Pick<Workspace, 'files'>, path: string): string {
  const text = workspace.files.get(path);
  if (text === undefined) throw new ConfigError('path', `no file ${path} in the workspace`);
  return text;
}

/** The workspace's paths under `folder` (e.g. `logs/`), sorted. */
export function pathsUnder(workspace: Pick<Workspace, 'files'>, folder: string): string[] {
  return [...workspace.files.keys()].filter((path) => path.startsWith(folder));
}

/** Writes every file under `root` (which must exist or be creatable). */
export async function writeWorkspace(workspace: Workspace, root: string): Promise<void> {
  for (const [path, text] of workspace.files) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text, 'utf8');
  }
}
