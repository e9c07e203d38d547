import { ConfigError } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { allOf } from '../checks/logic.js';
import { contains } from '../checks/text.js';
import { EvalCase } from './eval-case.js';

describe('EvalCase', () => {
  it('holds one prompt as a list of one', () => {
    const single = new EvalCase({
      name: 'mul',
      prompt: 'What is 6*7?',
      check: contains('42'),
      tags: ['math'],
    });
    expect(single.prompts).toEqual(['What is 6*7?']);
    expect(single.tags).toEqual(['math']);
    expect(single.facts).toEqual(['42']);
    expect(Object.isFrozen(single)).toBe(true);
  });

  it('keeps the prompts of a multi-prompt case in order', () => {
    const session = new EvalCase({
      name: 'order',
      prompts: ['Open ORD-7.', 'Its total?'],
      check: allOf(contains('ORD-7'), contains('$42')),
    });
    expect(session.prompts).toEqual(['Open ORD-7.', 'Its total?']);
    expect(session.tags).toEqual([]);
  });

  it('rejects bad input with the field', () => {
    const check = contains('x');
    expect(() => new EvalCase({ name: '', prompt: 'p', check })).toThrow(/name/);
    expect(() => new EvalCase({ name: 'a', check } as never)).toThrow(/prompt/);
    expect(() => new EvalCase({ name: 'a', prompt: 'p', prompts: ['q'], check })).toThrow(
      /exactly one/,
    );
    expect(() => new EvalCase({ name: 'a', prompts: ['ok', ' '], check })).toThrow(/prompts\[1\]/);
    expect(() => new EvalCase({ name: 'a', prompt: 'p', check: (() => true) as never })).toThrow(
      /check/,
    );
    expect(() => new EvalCase({ name: 'a', prompt: 'p', check, tags: 'x' as never })).toThrow(
      /tags/,
    );
    expect(() => new EvalCase({ name: 'a', prompt: 'p', check, extra: 1 } as never)).toThrow(
      ConfigError,
    );
  });
});
