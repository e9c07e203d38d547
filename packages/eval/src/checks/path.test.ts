import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { runCheck } from './check.js';
import { pathCandidates, pathIs, samePath } from './path.js';

const EXPECTED = 'src/orders/parse.ts';

describe('samePath (SPEC defect 3)', () => {
  it.each([
    ['the full path', 'src/orders/parse.ts'],
    ['a ./ prefix', './src/orders/parse.ts'],
    ['an absolute prefix', '/work/repo/src/orders/parse.ts'],
    ['a Windows prefix', 'C:\\repo\\src\\orders\\parse.ts'],
    ['the bare file name', 'parse.ts'],
    ['quotes around it', '`src/orders/parse.ts`'],
  ])('accepts %s', (_what, candidate) => {
    expect(samePath(candidate, EXPECTED)).toBe(true);
  });

  it.each([
    ['another directory', 'lib/parse.ts'],
    ['a sibling directory', 'src/billing/parse.ts'],
    ['a partial directory', 'orders/parse.ts'],
    ['a mere string suffix', 'mysrc/orders/parse.ts'],
    ['another file', 'src/orders/parse.js'],
    ['a directory of the same name', 'src/orders/parse.ts/extra'],
    ['a different case', 'src/Orders/parse.ts'],
    ['nothing', ''],
  ])('rejects %s', (_what, candidate) => {
    expect(samePath(candidate, EXPECTED)).toBe(false);
  });

  it('rejects an empty expected path', () => {
    expect(() => samePath('a', '')).toThrow(ConfigError);
    expect(() => samePath('a', './')).toThrow(/expected/);
  });
});

describe('pathIs', () => {
  const check = pathIs(EXPECTED);

  it('reads the ANSWER line when there is one', async () => {
    const result = await runCheck(check, {
      text: 'I looked at lib/parse.ts first.\nANSWER: parse.ts',
      runs: [],
      toolCalls: [],
    });
    expect(result.passed).toBe(true);
  });

  it.each([
    ['sentence punctuation after it', 'ANSWER: src/orders/parse.ts.'],
    ['a bold label', '**ANSWER:** src/orders/parse.ts'],
    ['a bold label and value', '**ANSWER: src/orders/parse.ts**'],
    ['words around it', 'ANSWER: The parser is src/orders/parse.ts'],
    ['a note after it', 'ANSWER: src/orders/parse.ts (line 12)'],
  ])('finds the path in an ANSWER line with %s', async (_what, text) => {
    expect((await runCheck(check, { text, runs: [], toolCalls: [] })).passed).toBe(true);
  });

  it('goes by the ANSWER line, not by paths mentioned before it', async () => {
    const result = await runCheck(check, {
      text: 'src/orders/parse.ts only re-exports it.\n**ANSWER:** lib/parse.ts.',
      runs: [],
      toolCalls: [],
    });
    expect(result.passed).toBe(false);
    expect(result.reason).toContain('"lib/parse.ts"');
  });

  it('otherwise finds path-like words in the answer', async () => {
    const found = await runCheck(check, {
      text: 'The parser lives in /repo/src/orders/parse.ts.',
      runs: [],
      toolCalls: [],
    });
    const wrong = await runCheck(check, {
      text: 'The parser lives in lib/parse.ts.',
      runs: [],
      toolCalls: [],
    });
    expect(found.passed).toBe(true);
    expect(wrong).toMatchObject({ passed: false });
    expect(wrong.reason).toContain('"lib/parse.ts"');
  });

  it('declares the expected path as a fact', () => {
    expect(check.facts).toEqual([EXPECTED]);
  });

  it('takes candidates from a custom source', async () => {
    const fromTool = pathIs(EXPECTED, {
      from: ({ toolCalls }) =>
        toolCalls.map((call) => String((call.input as { path?: string }).path)),
    });
    const result = await runCheck(fromTool, {
      text: '',
      runs: [],
      toolCalls: [
        {
          id: 't1',
          name: 'read_file',
          input: { path: './src/orders/parse.ts' },
          isError: false,
          result: '',
        },
      ],
    });
    expect(result.passed).toBe(true);
  });

  it('lists path candidates without trailing punctuation', () => {
    expect(pathCandidates('See src/a.ts, then (lib/b.ts). Done: c.md!')).toEqual([
      'src/a.ts',
      'lib/b.ts',
      'c.md',
    ]);
  });

  it('rejects a bad expected path or option', () => {
    expect(() => pathIs('')).toThrow(/expected/);
    expect(() => pathIs('a.ts', { from: 'x' } as never)).toThrow(/options\.from/);
  });
});
