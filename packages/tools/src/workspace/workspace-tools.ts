import type { Tool } from '@mh/core';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { listDirTool } from './list-dir-tool.js';
import { readFileTool } from './read-file-tool.js';
import { type WorkspaceToolsOptions, workspaceSettings } from './workspace-settings.js';

/**
 * The read-only workspace tools `read_file`, `list_dir`, `grep` and `glob`, confined to `root`:
 * `..` escapes, absolute paths elsewhere and symlinks leading out are refused with a message the
 * model reads. All are `read` (parallel, allowed by default) and idempotent. Throws `ConfigError`
 * when `root` is not an existing directory or a limit is not a positive integer.
 *
 * @example
 * ```ts
 * import { PolicyToolExecutor, workspaceTools } from '@mh/tools';
 *
 * const executor = new PolicyToolExecutor({ tools: workspaceTools({ root: process.cwd() }) });
 * ```
 */
export function workspaceTools(options: WorkspaceToolsOptions): Tool[] {
  const settings = workspaceSettings(options);
  return [readFileTool(settings), listDirTool(settings), grepTool(settings), globTool(settings)];
}
