import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README's code examples are kept verbatim in test/readme-snippet-*.ts, so type-checking the
// tests compiles them with their imports, as a user pasting one would; the reference in docs/
// takes what does not fit in 60 lines.
const at = (path: string): URL => new URL(path, import.meta.url);
const readme = readFileSync(at('../README.md'), 'utf8');
const reference = readFileSync(at('../docs/reference.md'), 'utf8');

/** A snippet file's text less its leading `//` header, which says where it comes from. */
function snippet(file: string): string {
  const lines = readFileSync(at(file), 'utf8').trimEnd().split('\n');
  return lines.slice(lines.findIndex((line) => !line.startsWith('//'))).join('\n');
}

const snippets = readdirSync(at('.'))
  .filter((name) => name.startsWith('readme-snippet-') && name.endsWith('.ts'))
  .map((name) => snippet(`./${name}`));

/** The fenced code blocks of a markdown text, with their language. */
function codeBlocks(text: string): { language: string; code: string }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)\n```$/gm)].map((match) => ({
    language: match[1] ?? '',
    code: match[2] ?? '',
  }));
}

/**
 * The names `src/index.ts` exports (values and types) from this package's files and from
 * `@mh/tools`; what it re-exports from core and providers is documented there.
 */
function exportedNames(): string[] {
  const index = readFileSync(at('../src/index.ts'), 'utf8');
  const own = /export (?:type )?\{([^}]*)\} from '(?:\.\/[^']*|@mh\/tools[^']*)'/g;
  return [...index.matchAll(own)].flatMap((match) =>
    (match[1] ?? '')
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').trim())
      .filter((name) => name !== ''),
  );
}

describe('README of @mh/sdk', () => {
  it('is at most 60 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(60);
  });

  it('holds only install lines and compiled TypeScript examples', () => {
    const blocks = codeBlocks(readme);
    expect(blocks.filter((block) => block.language === 'ts')).toHaveLength(snippets.length);
    for (const block of blocks) {
      if (block.language === 'sh') expect(block.code).toMatch(/^pnpm add [@\w/ -]+$/);
      else expect(snippets).toContain(block.code);
    }
  });

  it('or its reference names every export of the package, in code', () => {
    const names = exportedNames();
    expect(names).toEqual(
      expect.arrayContaining(['Agent', 'FencingOptions', 'PolicyToolExecutor']),
    );
    const code = [readme, reference].flatMap((text) => text.match(/`[^`]+`/g) ?? []).join('\n');
    const missing = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(missing).toEqual([]);
  });
});
