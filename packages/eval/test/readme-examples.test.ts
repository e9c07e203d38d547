import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';

// Every TypeScript example of the README (record-replay, eval) is held verbatim by a
// test/readme-snippet-*.ts file, so type-checking the tests compiles each one with its imports and
// declarations, as a user pasting it would.
describe('README', () => {
  it('is at most 60 lines, and each example is held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });
});
