import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The longest a package README may be. */
export const README_MAX_LINES = 60;

const BLOCK = /^```(\w*)\n([\s\S]*?)^```$/gm;
const EXAMPLE_LANGUAGES: readonly string[] = ['ts', 'typescript', 'tsx', 'mts', 'js', 'javascript'];
const INSTALL_LINE = /^pnpm add [@\w/. -]+?(?:\s+#.*)?$/;

/** Where `readmeExampleProblems` looks, when not at a package README and its snippets. */
export interface ReadmeExampleOptions {
  /** The README, relative to the test folder (default `../README.md`, the package's). */
  readonly readme?: string;
  /** The test folder's files that hold the README's examples (default `readme-snippet*.ts`). */
  readonly snippetFiles?: RegExp;
  /**
   * Whether it is a package README (default true): then it has at most `README_MAX_LINES` lines,
   * and each code block that is no example is an `sh` block of install lines (`pnpm add …`).
   */
  readonly packageReadme?: boolean;
}

/** A snippet file's code: its text less the leading `//` lines that say where it comes from. */
function snippetCode(path: string): string {
  const lines = readFileSync(path, 'utf8').split('\n');
  const start = lines.findIndex((line) => !line.startsWith('//'));
  return lines.slice(start).join('\n').trim();
}

/**
 * What keeps a package README honest, as a list of problems (empty: none). Every TypeScript or
 * JavaScript example of `README.md` (beside the test folder) must be held verbatim by exactly one
 * `readme-snippet*.ts` file of the test folder, after that file's leading `//` lines, so that
 * type-checking the tests compiles each example with its imports, as a user pasting it would;
 * every snippet must be an example of the README; the README has an example, at most
 * `README_MAX_LINES` lines, and no code block but examples and install lines. `testFolder` is a
 * path or a `file:` URL (`import.meta.url` of a test); `options` point it at another README.
 */
export function readmeExampleProblems(
  testFolder: string,
  options: ReadmeExampleOptions = {},
): string[] {
  const folder = testFolder.startsWith('file:')
    ? fileURLToPath(new URL('.', testFolder))
    : testFolder;
  const readmePath = join(folder, options.readme ?? join('..', 'README.md'));
  const name = basename(readmePath);
  const readme = readFileSync(readmePath, 'utf8');
  const blocks = [...readme.matchAll(BLOCK)].map((match) => ({
    language: match[1] ?? '',
    code: (match[2] ?? '').trim(),
  }));
  const examples = blocks
    .filter((block) => EXAMPLE_LANGUAGES.includes(block.language))
    .map((block) => block.code);
  const pattern = options.snippetFiles ?? /^readme-snippet.*\.ts$/;
  const snippets = readdirSync(folder)
    .filter((file) => pattern.test(file))
    .map((file) => ({ file, code: snippetCode(join(folder, file)) }));
  const problems: string[] = [];
  const packageReadme = options.packageReadme !== false;
  const lines = readme.trimEnd().split('\n').length;
  if (packageReadme && lines > README_MAX_LINES)
    problems.push(`${name} has ${lines} lines, more than ${README_MAX_LINES}`);
  if (examples.length === 0) problems.push(`${name} has no TypeScript example`);
  for (const [index, example] of examples.entries()) {
    const holders = snippets.filter((snippet) => snippet.code === example).length;
    if (holders !== 1)
      problems.push(
        `example ${index + 1} (${example.split('\n')[0]}) is held by ${holders} readme-snippet files, not 1`,
      );
  }
  for (const snippet of snippets)
    if (!examples.includes(snippet.code))
      problems.push(`${snippet.file} is not an example of ${name}`);
  if (packageReadme)
    for (const block of blocks)
      if (
        !EXAMPLE_LANGUAGES.includes(block.language) &&
        (block.language !== 'sh' ||
          !block.code.split('\n').every((line) => INSTALL_LINE.test(line)))
      )
        problems.push(
          `a \`\`\`${block.language} block (${block.code.split('\n')[0]}) is neither an example nor sh install lines`,
        );
  return problems;
}
