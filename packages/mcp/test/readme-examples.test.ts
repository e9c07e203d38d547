import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { McpClient } from '../src/index.js';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file, so
// type-checking the tests compiles each one with its imports, as a user pasting it would.
describe('README', () => {
  it('is at most 60 lines, and each example is held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });
});

describe('README usage example', () => {
  it('runs: connects to mcp-server-filesystem over stdio, registers the allowed tools, closes', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mh-readme-'));
    mkdirSync(join(folder, 'data'));
    const bin = fileURLToPath(new URL('../node_modules/.bin', import.meta.url));
    const cwd = process.cwd();
    vi.stubEnv('PATH', `${bin}${delimiter}${process.env.PATH ?? ''}`);
    const listTools = vi.spyOn(McpClient.prototype, 'listTools');
    const warning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    process.chdir(folder);
    try {
      await import('./readme-snippet-usage.js');
      const listed = (await listTools.mock.results[0]?.value) as { name: string }[] | undefined;
      const names = listed?.map((tool) => tool.name);
      // The tools the example allows are real tools of the server, and none was dropped.
      expect(names).toEqual(expect.arrayContaining(['read_text_file', 'list_directory']));
      expect(warning).not.toHaveBeenCalled();
    } finally {
      process.chdir(cwd);
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
