import { readFileSync } from 'node:fs';
import { readmeExampleProblems } from '@mh/core/testing';
import { describe, expect, it } from 'vitest';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file, so
// type-checking the tests compiles each one with its imports, as a user pasting it would; the
// reference in docs/ takes what does not fit in 60 lines.
const at = (path: string): URL => new URL(path, import.meta.url);

/** The names `src/index.ts` exports (values and types). */
function exportedNames(): string[] {
  const index = readFileSync(at('../src/index.ts'), 'utf8');
  return [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter((name) => name !== ''),
  );
}

describe('README of @mh/tools', () => {
  it('is at most 60 lines of install lines and examples, each held by exactly one snippet (and each snippet is one)', () => {
    expect(readmeExampleProblems(import.meta.url)).toEqual([]);
  });

  it('or its reference names every export of the package, in code', () => {
    const names = exportedNames();
    expect(names).toContain('PolicyToolExecutor');
    const texts = ['../README.md', '../docs/reference.md'].map((path) =>
      readFileSync(at(path), 'utf8'),
    );
    const code = texts.flatMap((text) => text.match(/`[^`]+`/g) ?? []).join('\n');
    const missing = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(missing).toEqual([]);
  });
});
