import { describe, expect, it } from 'vitest';
import { DEFAULT_PATHS, parseGateArgs } from './gate-args.js';

describe('parseGateArgs', () => {
  it('takes the defaults when given nothing', () => {
    expect(parseGateArgs([])).toEqual({ ...DEFAULT_PATHS, updateBaseline: false });
  });

  it('skips the -- that `pnpm --filter @mh/eval-demo eval -- --update-baseline` passes on', () => {
    // pnpm 12 hands the separator to the script, so the README's command arrives like this.
    expect(parseGateArgs(['--', '--update-baseline', '--report', 'r.json'])).toEqual({
      ...DEFAULT_PATHS,
      report: 'r.json',
      updateBaseline: true,
    });
  });

  it('still refuses anything else with the usage line', () => {
    expect(() => parseGateArgs(['--update-baseline', '--frobnicate'])).toThrow(
      /unexpected argument --frobnicate; usage:/,
    );
    expect(() => parseGateArgs(['--report'])).toThrow(/unexpected argument --report/);
  });
});
