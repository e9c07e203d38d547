import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The longest a package README may be. */
export const README_MAX_LINES = 60;

const EXAMPLE = /^```(?:ts|typescript|tsx|mts|js|javascript)\n([\s\S]*?)^```$/gm;
const SNIPPET_FILE = /^readme-snippet.*\.ts$/;

/**
 * What keeps a package README honest, as a list of problems (empty: none). Every TypeScript or
 * JavaScript example of `README.md` (beside the test folder) must be held verbatim by exactly one
 * `readme-snippet*.ts` file of the test folder, after that file's leading `//` lines, so that
 * type-checking the tests compiles each example with its imports, as a user pasting it would;
 * every snippet must be an example of the README; the README has an example and at most
 * `README_MAX_LINES` lines. `testFolder` is a path or a `file:` URL (`import.meta.url` of a test).
 */
export function readmeExampleProblems(testFolder: string): string[] {
  const folder = testFolder.startsWith('file:')
    ? fileURLToPath(new URL('.', testFolder))
    : testFolder;
  const readme = readFileSync(join(folder, '..', 'README.md'), 'utf8');
  const examples = [...readme.matchAll(EXAMPLE)].map((match) => (match[1] ?? '').trim());
  const snippets = readdirSync(folder)
    .filter((file) => SNIPPET_FILE.test(file))
    .map((file) => {
      const lines = readFileSync(join(folder, file), 'utf8').split('\n');
      const start = lines.findIndex((line) => !line.startsWith('//'));
      return { file, code: lines.slice(start).join('\n').trim() };
    });
  const problems: string[] = [];
  const lines = readme.trimEnd().split('\n').length;
  if (lines > README_MAX_LINES)
    problems.push(`README.md has ${lines} lines, more than ${README_MAX_LINES}`);
  if (examples.length === 0) problems.push('README.md has no TypeScript example');
  for (const [index, example] of examples.entries()) {
    const holders = snippets.filter((snippet) => snippet.code === example).length;
    if (holders !== 1)
      problems.push(
        `example ${index + 1} (${example.split('\n')[0]}) is held by ${holders} readme-snippet files, not 1`,
      );
  }
  for (const snippet of snippets)
    if (!examples.includes(snippet.code))
      problems.push(`${snippet.file} is not an example of README.md`);
  return problems;
}
