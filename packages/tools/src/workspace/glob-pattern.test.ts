import { describe, expect, it } from 'vitest';
import { globToRegExp } from './glob-pattern.js';

describe('globToRegExp', () => {
  it.each([
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['**/*.ts', 'src/a.tsx', false],
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['src/**', 'src/a/b.txt', true],
    ['src/**/test/*.js', 'src/test/x.js', true],
    ['src/**/test/*.js', 'src/a/b/test/x.js', true],
    ['file?.txt', 'file1.txt', true],
    ['file?.txt', 'file12.txt', false],
    ['[ab].md', 'b.md', true],
    ['[!ab].md', 'c.md', true],
    ['[!ab].md', 'a.md', false],
    ['[a-c]x', 'bx', true],
    ['*.{js,json}', 'package.json', true],
    ['*.{js,json}', 'index.js', true],
    ['*.{js,json}', 'index.ts', false],
    ['{src,test}/**/*.ts', 'test/unit/a.ts', true],
    ['a.b', 'axb', false],
    ['(x)+.txt', '(x)+.txt', true],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
    ['./*.md', 'README.md', true],
    ['*', '.env', true],
  ])('matches %s against %s: %s', (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });
});
