import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from './demo-args.js';

describe('parseDemoArgs', () => {
  it('writes to reports/eval-demo unless a folder is given', () => {
    expect(parseDemoArgs([])).toBe(join('reports', 'eval-demo'));
    expect(parseDemoArgs(['/tmp/out'])).toBe('/tmp/out');
  });

  it('skips the -- that `pnpm eval-demo -- …` passes on instead of writing to a folder named --', () => {
    expect(parseDemoArgs(['--'])).toBe(join('reports', 'eval-demo'));
    expect(parseDemoArgs(['--', '/tmp/out'])).toBe('/tmp/out');
  });

  it('refuses a flag or a second folder with the usage line', () => {
    expect(() => parseDemoArgs(['--help'])).toThrow(
      'unexpected argument --help; usage: eval-demo [OUT_DIR]',
    );
    expect(() => parseDemoArgs(['a', 'b'])).toThrow(
      'unexpected argument b; usage: eval-demo [OUT_DIR]',
    );
  });
});
