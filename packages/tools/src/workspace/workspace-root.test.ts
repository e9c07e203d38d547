import path from 'node:path';
import { ConfigError } from '@mh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempWorkspace, type TempWorkspace } from './__fixtures__/temp-workspace.js';
import { WorkspaceRoot } from './workspace-root.js';

let workspace: TempWorkspace;
let root: WorkspaceRoot;

beforeAll(async () => {
  workspace = await makeTempWorkspace();
  root = new WorkspaceRoot(workspace.root);
});
afterAll(() => workspace.remove());

describe('WorkspaceRoot', () => {
  it('resolves a relative path inside the root', async () => {
    const resolved = await root.resolve('src/main.ts');
    expect(resolved.relative).toBe('src/main.ts');
    expect(resolved.absolute).toBe(path.join(root.real, 'src', 'main.ts'));
  });

  it('resolves an absent path to the root itself', async () => {
    expect((await root.resolve(undefined)).relative).toBe('.');
  });

  it('accepts an absolute path inside the root', async () => {
    const resolved = await root.resolve(path.join(workspace.root, 'notes.txt'));
    expect(resolved.relative).toBe('notes.txt');
  });

  it('accepts a .. that stays inside the root', async () => {
    expect((await root.resolve('src/../notes.txt')).relative).toBe('notes.txt');
  });

  it('refuses a ../ escape', async () => {
    await expect(root.resolve('../outside/secret.txt')).rejects.toThrow(
      'Path refused: ../outside/secret.txt leads outside the workspace.',
    );
  });

  it('refuses an absolute path outside the root', async () => {
    const secret = path.join(workspace.outside, 'secret.txt');
    await expect(root.resolve(secret)).rejects.toThrow(
      `Path refused: ${secret} is outside the workspace.`,
    );
  });

  it('refuses a symlink whose target is outside the root', async () => {
    await expect(root.resolve('escape-link.txt')).rejects.toThrow(
      'escape-link.txt is a symlink that leads outside the workspace',
    );
  });

  it('refuses a path through a symlinked directory outside the root', async () => {
    await expect(root.resolve('escape-dir/secret.txt')).rejects.toThrow(
      'leads outside the workspace',
    );
  });

  it('follows a symlink whose target is inside the root', async () => {
    expect((await root.resolve('inside-link.txt')).relative).toBe('notes.txt');
  });

  it('says when a path does not exist', async () => {
    await expect(root.resolve('missing.txt')).rejects.toThrow(
      'No such file or directory: missing.txt',
    );
  });

  it('rejects a root that does not exist with ConfigError naming root', () => {
    let error: unknown;
    try {
      new WorkspaceRoot(path.join(workspace.root, 'nope'));
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.field).toBe('root');
  });
});
