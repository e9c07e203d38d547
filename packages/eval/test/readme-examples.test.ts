import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README's examples, kept verbatim in test/readme-snippet-*.ts so that type-checking the tests
// compiles them with their imports and declarations, as a user pasting one would.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function snippet(name: string): string {
  return readFileSync(new URL(`./readme-snippet-${name}.ts`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join('\n')
    .trim();
}

describe('README examples', () => {
  for (const name of ['record-replay', 'eval'])
    it(`holds the ${name} example verbatim`, () => {
      expect(readme).toContain(`\`\`\`ts\n${snippet(name)}\n\`\`\``);
    });
});
