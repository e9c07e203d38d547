import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readmeExampleProblems } from './readme-examples.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A package folder with `readme` and the given test files; returns its test folder. */
function pkg(readme: string, files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'mh-readme-'));
  mkdirSync(join(root, 'test'));
  writeFileSync(join(root, 'README.md'), readme);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'test', name), text);
  return join(root, 'test');
}

const example = "import { x } from 'y';\nx();";
const readme = `# p\n\n\`\`\`ts\n${example}\n\`\`\`\n`;

describe('readmeExampleProblems', () => {
  it('finds none when every example has its snippet (after its header comments)', () => {
    const folder = pkg(readme, { 'readme-snippet-a.ts': `// from the README\n${example}\n` });
    expect(readmeExampleProblems(folder)).toEqual([]);
    expect(readmeExampleProblems(new URL(`file://${folder}/x.test.ts`).href)).toEqual([]);
  });

  it('names an example without its snippet, a stray snippet, a missing example and a long README', () => {
    expect(readmeExampleProblems(pkg(readme, {}))).toEqual([
      "example 1 (import { x } from 'y';) is held by 0 readme-snippet files, not 1",
    ]);
    expect(readmeExampleProblems(pkg('# p\n', { 'readme-snippet-b.ts': example }))).toEqual([
      'README.md has no TypeScript example',
      'readme-snippet-b.ts is not an example of README.md',
    ]);
    const long = `${readme}${'line\n'.repeat(60)}`;
    expect(readmeExampleProblems(pkg(long, { 'readme-snippet-a.ts': example }))).toEqual([
      'README.md has 66 lines, more than 60',
    ]);
  });

  it('names a code block that is neither an example nor sh install lines', () => {
    const install = '```sh\npnpm add @mh/x zod   # and zod\npnpm add -D @mh/y\n```\n';
    const snippet = { 'readme-snippet-a.ts': example };
    expect(readmeExampleProblems(pkg(`${install}${readme}`, snippet))).toEqual([]);
    const other = '```sh\nnpm run build\n```\n```json\n{}\n```\n';
    expect(readmeExampleProblems(pkg(`${other}${readme}`, snippet))).toEqual([
      'a ```sh block (npm run build) is neither an example nor sh install lines',
      'a ```json block ({}) is neither an example nor sh install lines',
    ]);
  });

  it('checks another README against the snippet files it is told, without the package rules', () => {
    const long = `${'```sh\nnpm start\n```\n'}${readme}${'line\n'.repeat(60)}`;
    const folder = pkg('# p\n', {
      'readme-snippet.ts': example,
      'readme-snippet-a.ts': 'other();',
      'ROOT.md': long,
    });
    const options = {
      readme: 'ROOT.md',
      snippetFiles: /^readme-snippet\.ts$/,
      packageReadme: false,
    };
    expect(readmeExampleProblems(folder, options)).toEqual([]);
    expect(readmeExampleProblems(folder, { ...options, packageReadme: true })).toEqual([
      'ROOT.md has 69 lines, more than 60',
      'a ```sh block (npm start) is neither an example nor sh install lines',
    ]);
  });
});
