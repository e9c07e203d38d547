import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDemoArgs } from './demo-args.js';

const DEFAULT = join('reports', 'eval-demo');

describe('parseDemoArgs', () => {
  it('writes to reports/eval-demo unless a folder is given', () => {
    expect(parseDemoArgs([])).toEqual({ out: DEFAULT });
    expect(parseDemoArgs(['/tmp/out'])).toEqual({ out: '/tmp/out' });
  });

  it('skips the -- that `pnpm eval-demo -- …` passes on instead of writing to a folder named --', () => {
    expect(parseDemoArgs(['--'])).toEqual({ out: DEFAULT });
    expect(parseDemoArgs(['--', '/tmp/out'])).toEqual({ out: '/tmp/out' });
  });

  it('takes --html FILE or --html=FILE, before or after the folder', () => {
    expect(parseDemoArgs(['--html', 'out.html'])).toEqual({ out: DEFAULT, html: 'out.html' });
    expect(parseDemoArgs(['--', '/tmp/out', '--html=r.html'])).toEqual({
      out: '/tmp/out',
      html: 'r.html',
    });
    expect(parseDemoArgs(['--html', 'r.html', '/tmp/out'])).toEqual({
      out: '/tmp/out',
      html: 'r.html',
    });
  });

  it('refuses --html without a file, or twice', () => {
    expect(() => parseDemoArgs(['--html'])).toThrow(
      '--html needs a file name; usage: eval-demo [OUT_DIR] [--html FILE]',
    );
    expect(() => parseDemoArgs(['--html', '--help'])).toThrow('--html needs a file name');
    expect(() => parseDemoArgs(['--html='])).toThrow('--html needs a file name');
    expect(() => parseDemoArgs(['--html', 'a.html', '--html', 'b.html'])).toThrow(
      '--html given twice',
    );
  });

  it('refuses another flag or a second folder with the usage line', () => {
    expect(() => parseDemoArgs(['--help'])).toThrow(
      'unexpected argument --help; usage: eval-demo [OUT_DIR] [--html FILE]',
    );
    expect(() => parseDemoArgs(['a', 'b'])).toThrow(
      'unexpected argument b; usage: eval-demo [OUT_DIR] [--html FILE]',
    );
  });
});
