import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { runFixture } from '../../test/session-fixture.js';
import { check, runCheck } from './check.js';
import type { CheckInput } from './input.js';
import { checkInputOf } from './input.js';
import { allOf, anyOf, not } from './logic.js';
import { contains, matches } from './text.js';
import { toolCalled } from './tools.js';

function answer(text: string): CheckInput {
  return { text, runs: [], toolCalls: [] };
}

describe('contains', () => {
  it('passes when the answer holds the phrase, ignoring case by default', async () => {
    expect((await runCheck(contains('ord-42'), answer('Order ORD-42 shipped'))).passed).toBe(true);
    expect(
      (await runCheck(contains('ord-42', { caseSensitive: true }), answer('ORD-42'))).passed,
    ).toBe(false);
  });

  it('declares its phrase as a fact and reports what it saw', async () => {
    const phrase = contains('$41.50');
    expect(phrase.facts).toEqual(['$41.50']);
    const result = await runCheck(phrase, answer('The total is $40.'));
    expect(result).toMatchObject({ passed: false, failures: [{ check: 'contains("$41.50")' }] });
    expect(result.reason).toContain('The total is $40.');
  });

  it('rejects an empty phrase and unknown options', () => {
    expect(() => contains('')).toThrow(ConfigError);
    expect(() => contains('x', { tag: ['a'] } as never)).toThrow(/options\.tag/);
  });
});

describe('matches', () => {
  it('tests a RegExp without keeping state between runs', async () => {
    const line = matches(/ANSWER: \d+/g);
    expect((await runCheck(line, answer('ANSWER: 42'))).passed).toBe(true);
    expect((await runCheck(line, answer('ANSWER: 42'))).passed).toBe(true);
  });

  it('compiles a string pattern and rejects an invalid one', async () => {
    expect((await runCheck(matches('^\\d+$'), answer('42'))).passed).toBe(true);
    expect(() => matches('(')).toThrow(/pattern/);
  });

  it('carries its tags into failures', async () => {
    const result = await runCheck(matches(/^ANSWER:/, { tags: ['format'] }), answer('42'));
    expect(result.failures[0]?.tags).toEqual(['format']);
  });
});

describe('allOf, anyOf and not', () => {
  it('allOf reports every failed leaf and unions the facts', async () => {
    const both = allOf(contains('A-1'), contains('B-2'), matches(/x/, { tags: ['format'] }));
    expect(both.facts).toEqual(['A-1', 'B-2']);
    const result = await runCheck(both, answer('A-1 only'));
    expect(result.passed).toBe(false);
    expect(result.failures.map((failure) => failure.check)).toEqual([
      'contains("B-2")',
      'matches(/x/)',
    ]);
  });

  it('anyOf passes on the first passing check and fails with all failures', async () => {
    const either = anyOf(contains('42'), contains('forty-two'));
    expect((await runCheck(either, answer('forty-two'))).passed).toBe(true);
    expect((await runCheck(either, answer('41'))).failures).toHaveLength(2);
  });

  it('not inverts and declares no facts', async () => {
    const refusal = not(contains('I cannot'));
    expect(refusal.facts).toEqual([]);
    expect((await runCheck(refusal, answer('Sure: 42'))).passed).toBe(true);
    const failed = await runCheck(refusal, answer('I cannot help'));
    expect(failed).toMatchObject({
      passed: false,
      failures: [{ check: 'not(contains("I cannot"))' }],
    });
  });

  it('reject non-checks with the index of the bad one', () => {
    expect(() => allOf()).toThrow(ConfigError);
    expect(() => anyOf(contains('a'), 'b' as never)).toThrow(/checks\[1\]/);
    expect(() => not({} as never)).toThrow(/check/);
  });
});

describe('check (custom)', () => {
  it('accepts a boolean or a verdict object, sync or async', async () => {
    const short = check('short', ({ text }) => text.length < 5);
    const explained = check('explained', async () => ({ passed: false, reason: 'too vague' }), {
      facts: ['X-9'],
      tags: ['style'],
    });
    expect((await runCheck(short, answer('ok'))).passed).toBe(true);
    expect(await runCheck(explained, answer('ok'))).toMatchObject({
      passed: false,
      reason: 'too vague',
      failures: [{ check: 'explained', tags: ['style'] }],
    });
    expect(explained.facts).toEqual(['X-9']);
  });

  it('turns a malformed verdict into a thrown error (an eval failure)', async () => {
    const broken = check('broken', () => 'yes' as never);
    await expect(runCheck(broken, answer('x'))).rejects.toThrow(/not a boolean verdict/);
  });

  it('rejects a missing name or function', () => {
    expect(() => check('', () => true)).toThrow(/name/);
    expect(() => check('x', 'y' as never)).toThrow(/fn/);
    expect(() => check('x', () => true, { facts: [1] } as never)).toThrow(/options\.facts/);
  });
});

describe('runCheck and sessionToolCalls', () => {
  it('reject what is not a check, an input or a list of runs', async () => {
    await expect(runCheck({} as never, answer('x'))).rejects.toThrow(/check/);
    await expect(runCheck(contains('x'), { text: 1 } as never)).rejects.toThrow(/input/);
    expect(() => checkInputOf('runs' as never)).toThrow(/runs/);
    expect(() => checkInputOf([{}] as never)).toThrow(ConfigError);
  });
});

describe('toolCalled', () => {
  it('sees the calls of every run of a session, with arguments and results', async () => {
    const session = await runFixture({
      prompts: ['first', 'second'],
      turns: [
        { calls: [{ name: 'lookup', input: { id: 7, verbose: true } }] },
        { text: 'found' },
        { calls: [{ name: 'refund', input: { id: 7 } }] },
        { text: 'done' },
      ],
      tools: {
        lookup: { run: () => 'order 7' },
        refund: {
          run: () => {
            throw new Error('refused');
          },
        },
      },
    });
    const input = checkInputOf(session.results);
    expect(input.text).toBe('done');
    expect((await runCheck(toolCalled('lookup', { input: { id: 7 } }), input)).passed).toBe(true);
    expect((await runCheck(toolCalled('lookup', { input: { id: 8 } }), input)).passed).toBe(false);
    expect((await runCheck(toolCalled('refund'), input)).passed).toBe(true);
    expect((await runCheck(toolCalled('refund', { succeeded: true }), input)).passed).toBe(false);
    expect((await runCheck(toolCalled('lookup', { times: 2 }), input)).reason).toContain(
      'called 1 time(s)',
    );
    expect(
      (
        await runCheck(
          toolCalled('lookup', {
            input: (args) => (args as { verbose?: boolean }).verbose === true,
          }),
          input,
        )
      ).passed,
    ).toBe(true);
  });

  it('rejects bad options with the field', () => {
    expect(() => toolCalled('')).toThrow(/name/);
    expect(() => toolCalled('x', { times: 0 })).toThrow(/options\.times/);
    expect(() => toolCalled('x', { input: [1] as never })).toThrow(/options\.input/);
  });
});
