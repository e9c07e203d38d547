import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliArgs, splitCommand } from '../src/args.js';

// The README's examples are command lines, not TypeScript: each one must parse as the CLI's
// arguments, so a renamed or removed flag cannot stay documented.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The `mh …` command lines the README shows in code (`pnpm mh …` too), without `mh`. */
function commands(): string[][] {
  return (readme.match(/`[^`]+`/g) ?? [])
    .map((span) => splitCommand(span.slice(1, -1)))
    .filter((words) => words[0] === 'mh' || (words[0] === 'pnpm' && words[1] === 'mh'))
    .map((words) => words.slice(words.indexOf('mh') + 1));
}

describe('README of mh', () => {
  it('is at most 60 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(60);
  });

  it('shows only command lines the CLI accepts', () => {
    const shown = commands();
    expect(shown).toContainEqual(['--fake', 'What is 6*7?']);
    for (const argv of shown) expect(() => parseCliArgs(argv), argv.join(' ')).not.toThrow();
  });
});
