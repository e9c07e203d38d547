import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentSettings } from '../src/run/session-agent.js';
import { DEFAULT_SYSTEM_PROMPT } from '../src/run/system-prompt.js';
import {
  generateWorkspace,
  type Workspace,
  writeWorkspace,
} from '../src/workspace/generate-workspace.js';

/** The suite's workspace written to a temp folder, and settings for oracle sessions on it. */
export interface OracleBench {
  readonly workspace: Workspace;
  readonly settings: Omit<AgentSettings, 'provider'>;
  remove(): Promise<void>;
}

/** Writes the workspace to a fresh temp folder. */
export async function oracleBench(
  overrides: Partial<Omit<AgentSettings, 'provider' | 'workspaceRoot'>> = {},
): Promise<OracleBench> {
  const workspace = generateWorkspace();
  const root = await mkdtemp(join(tmpdir(), 'mh-evals-oracle-'));
  await writeWorkspace(workspace, root);
  return {
    workspace,
    settings: {
      workspaceRoot: root,
      model: 'claude-sonnet-4-5',
      system: DEFAULT_SYSTEM_PROMPT,
      fencing: true,
      compaction: true,
      ...overrides,
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
