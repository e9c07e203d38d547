import { ConfigError } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { workspaceTools } from './workspace-tools.js';

let workspace: TempWorkspace;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
});
afterAll(() => workspace.remove());

describe('workspaceTools', () => {
  it('returns the four read-only, idempotent tools', () => {
    const tools = workspaceTools({ root: workspace.root });
    expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'list_dir', 'grep', 'glob']);
    expect(tools.every((tool) => tool.permission === 'read' && tool.idempotent === true)).toBe(
      true,
    );
  });

  it('rejects a non-positive limit with ConfigError naming it', () => {
    let error: unknown;
    try {
      workspaceTools({ root: workspace.root, maxMatches: 0 });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.field).toBe('maxMatches');
  });
});
