import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file, so
// type-checking the tests compiles each one with its imports, as a user pasting it would. The
// worker and the client run for real in durable-workers.test.ts (children/worker.mjs is the
// worker with tools and a loopback model).
describe('README', () => {
  it('is at most 60 lines, and each example is held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });
});
