import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

// The root README promises an agent with a zod-typed tool in ten lines. test/readme-snippet.ts holds
// that snippet verbatim: it is type-checked with the tests, and run here.
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const snippet = readFileSync(new URL('../test/readme-snippet.ts', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith('//'))
  .join('\n');

describe('README example', () => {
  it('is in the README verbatim', () => {
    expect(readme).toContain(snippet);
  });

  it('is at most ten lines of code', () => {
    expect(snippet.split('\n').filter((line) => line.trim() !== '').length).toBeLessThanOrEqual(10);
  });

  it('runs and prints the tool result', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('../test/readme-snippet.js');
    expect(log).toHaveBeenCalledWith('add returned: 5');
    log.mockRestore();
  });
});
