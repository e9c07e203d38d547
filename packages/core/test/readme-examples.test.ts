import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every TypeScript example of the README is held verbatim by a test/readme-snippet-*.ts file (after
// its leading comment lines), so type-checking the tests compiles each one with its imports, as a
// user pasting it would. An example without its snippet, or a snippet without its example, fails.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const examples = [
  ...readme.matchAll(/^```(?:ts|typescript|tsx|mts|js|javascript)\n([\s\S]*?)^```$/gm),
].map((match) => (match[1] ?? '').trim());
const snippets = readdirSync(new URL('.', import.meta.url))
  .filter((file) => /^readme-snippet.*\.ts$/.test(file))
  .map((file) => {
    const lines = readFileSync(new URL(file, import.meta.url), 'utf8').split('\n');
    const start = lines.findIndex((line) => !line.startsWith('//'));
    return { file, code: lines.slice(start).join('\n').trim() };
  });

describe('README', () => {
  it('is at most 60 lines and has a TypeScript example', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(60);
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const [index, example] of examples.entries())
    it(`example ${index + 1} is held verbatim by one test/readme-snippet-*.ts`, () => {
      const holders = snippets.filter((snippet) => snippet.code === example);
      expect(holders, example.split('\n')[0]).toHaveLength(1);
    });

  for (const snippet of snippets)
    it(`${snippet.file} is an example of the README`, () => {
      expect(examples).toContain(snippet.code);
    });
});
