import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../src/index.js';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file, so
// type-checking the tests compiles each one with its imports, as a user pasting it would.
describe('README', () => {
  it('is at most 60 lines, and each example is held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });
});

describe('README usage example', () => {
  it('runs on SQLite: a session whose first turn is kept on main and rewound onto retry', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mh-readme-'));
    const cwd = process.cwd();
    vi.stubEnv('DATABASE_URL', '');
    process.chdir(folder);
    try {
      await import('./readme-snippet-usage.js');
    } finally {
      process.chdir(cwd);
      vi.unstubAllEnvs();
    }
    const store = await openSqliteStore(join(folder, 'mh.db'));
    try {
      const [session] = await store.listSessions();
      expect(session?.title).toBe('demo');
      const branches = (await store.listBranches(session?.id ?? '')).map((branch) => branch.name);
      expect(branches.sort()).toEqual(['main', 'retry']);
      expect((await store.load(session?.id ?? '', 'main')).messages).toHaveLength(1);
      expect((await store.load(session?.id ?? '', 'retry')).messages).toHaveLength(0);
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
