import { readFileSync } from 'node:fs';
import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it, vi } from 'vitest';

// The root README promises an agent with a zod-typed tool in ten lines. test/readme-snippet.ts holds
// that example verbatim: it is type-checked with the tests, and run here.
const testFolder = new URL('../test/', import.meta.url).href;
const snippetLines = readFileSync(new URL('readme-snippet.ts', testFolder), 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith('//') && line.trim() !== '');

describe('README example', () => {
  it("is the root README's one example, verbatim", () => {
    const root = { readme: '../../../README.md', snippetFiles: /^readme-snippet\.ts$/ };
    expect(readmeExampleProblems(testFolder, { ...root, packageReadme: false })).toEqual([]);
  });

  it('is at most ten lines of code', () => {
    expect(snippetLines.length).toBeLessThanOrEqual(10);
  });

  it('runs and prints the tool result', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('../test/readme-snippet.js');
    expect(log).toHaveBeenCalledWith('add returned: 5');
    log.mockRestore();
  });
});
