import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it, vi } from 'vitest';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file, so
// type-checking the tests compiles each one with its imports, as a user pasting it would.
describe('README', () => {
  it('is at most 60 lines, and each example is held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });
});

describe('README usage example', () => {
  it('runs without a collector: prints the tree and the metrics, then shuts down', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import('./readme-snippet-usage.js');
      expect(log).toHaveBeenCalledTimes(1);
      expect(log.mock.calls[0]?.[1]).toMatchObject({ runs: 0 });
    } finally {
      log.mockRestore();
    }
  });
});
